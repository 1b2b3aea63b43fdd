// A scripted ResourceClient for the node writers' tests: every call is
// recorded; get/create/update/patch answer from a queue of scripted results
// per verb (a value, or an error to reject with). A verb called with nothing
// queued fails the test loudly.
import { ApiStatusError } from '../../../../src/client/errors.js';
import type { ApiObject, ClientLog, ResourceClient, ResourceType } from '../../../../src/client/types.js';

export type Verb = 'get' | 'create' | 'update' | 'patch';

export interface Call {
  readonly verb: Verb;
  readonly name?: string;
  readonly obj?: ApiObject;
  readonly opts?: Record<string, unknown>;
  readonly patchType?: string;
  readonly patch?: unknown;
}

export type Answer = { readonly ok: ApiObject } | { readonly err: unknown };

export const apiError = (code: number, reason: string, verb = 'GET', path = '/x'): ApiStatusError =>
  new ApiStatusError({ method: verb, path }, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `${reason} (test)`, reason, code }, undefined);

export const notFound = (): ApiStatusError => apiError(404, 'NotFound');
export const conflict = (): ApiStatusError => apiError(409, 'Conflict', 'PUT');
export const internal = (): ApiStatusError => apiError(500, 'InternalError');

export class FakeResourceClient implements ResourceClient {
  readonly calls: Call[] = [];
  private readonly answers: Record<Verb, Answer[]> = { get: [], create: [], update: [], patch: [] };

  constructor(
    readonly type: ResourceType,
    readonly namespace: string,
  ) {}

  answer(verb: Verb, ...answers: Answer[]): this {
    this.answers[verb].push(...answers);
    return this;
  }

  verbs(): string[] {
    return this.calls.map((c) => `${c.verb}${c.name === undefined ? '' : ` ${c.name}`}`);
  }

  private next(verb: Verb, call: Call, signal: unknown): Promise<ApiObject> {
    this.calls.push(call);
    if (signal instanceof AbortSignal && signal.aborted) return Promise.reject(signal.reason);
    const a = this.answers[verb].shift();
    if (a === undefined) return Promise.reject(new Error(`fake ${this.type.resource}: unexpected ${verb} ${call.name ?? ''}`));
    return 'ok' in a ? Promise.resolve(structuredClone(a.ok)) : Promise.reject(a.err);
  }

  get(name: string, opts?: { resourceVersion?: string; signal?: AbortSignal }): Promise<ApiObject> {
    return this.next('get', { verb: 'get', name, opts: { ...opts } }, opts?.signal);
  }
  create(obj: ApiObject, opts?: { signal?: AbortSignal }): Promise<ApiObject> {
    return this.next('create', { verb: 'create', obj: structuredClone(obj), opts: { ...opts } }, opts?.signal);
  }
  update(obj: ApiObject, opts?: { signal?: AbortSignal }): Promise<ApiObject> {
    return this.next('update', { verb: 'update', obj: structuredClone(obj), opts: { ...opts } }, opts?.signal);
  }
  patch(name: string, patchType: string, patch: unknown, opts?: { signal?: AbortSignal }): Promise<ApiObject> {
    return this.next('patch', { verb: 'patch', name, patchType, patch: structuredClone(patch), opts: { ...opts } }, opts?.signal);
  }
  list(): never {
    throw new Error('not used');
  }
  watch(): never {
    throw new Error('not used');
  }
  listAll(): never {
    throw new Error('not used');
  }
  updateWithRetry(): never {
    throw new Error('not used');
  }
  delete(): never {
    throw new Error('not used');
  }
  deleteCollection(): never {
    throw new Error('not used');
  }
}

export const NODES: ResourceType = { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false };
export const PODS: ResourceType = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
export const LEASES: ResourceType = { group: 'coordination.platform.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true };

export function recordingLog(): ClientLog & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => void lines.push(`info ${m}`),
    warn: (m) => void lines.push(`warn ${m}`),
    error: (m) => void lines.push(`error ${m}`),
  };
}
