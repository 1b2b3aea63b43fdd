// The one error the node writers add to the client's (src/client/errors.ts):
// a writer that gave up after its bounded retries. It names the operation and
// the object, and keeps the last attempt's error as `cause` (an
// ApiStatusError, ClientConnectionError, ...), so a caller still branches on
// the underlying kind with the client's predicates applied to `cause`.

export type NodeWriterOperation = 'update node status' | 'patch pod status' | 'renew lease';

export class NodeWriterError extends Error {
  readonly operation: NodeWriterOperation;
  /** `nodes/<name>`, `pods/<namespace>/<name>`, `leases/<namespace>/<name>`. */
  readonly object: string;
  readonly attempts: number;
  constructor(operation: NodeWriterOperation, object: string, attempts: number, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`${operation} ${object}: gave up after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${why}`, { cause });
    this.name = 'NodeWriterError';
    this.operation = operation;
    this.object = object;
    this.attempts = attempts;
  }
}

export const isNodeWriterError = (e: unknown): e is NodeWriterError => e instanceof NodeWriterError;
