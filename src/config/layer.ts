// One configuration file's contribution to the merge (load.ts reads it,
// resolve.ts applies it). Apart from load.ts so that resolve.ts can recognise a
// partly decoded file without loading yaml and zod for a flag-only start.
import { ValidationError, type AgentError } from '../errors.js';

export type LayerKind = 'file' | 'dropin';

export interface FileLayer {
  readonly kind: LayerKind;
  readonly file: string;
  /** Decoded values by field path, only for fields the file sets. */
  readonly values: ReadonlyMap<string, unknown>;
  /** Map entries a drop-in deletes with `key: null` (JSON merge patch), by field path. */
  readonly deletions: ReadonlyMap<string, readonly string[]>;
  readonly warnings: readonly string[];
}

/**
 * A file whose fields did not all decode. It carries the layer of the fields
 * that did (with every unknown-field warning), so the caller can check those
 * too and report everything about the file in one pass.
 */
export class FileLayerError extends ValidationError {
  override name = 'FileLayerError';
  constructor(
    problems: readonly AgentError[],
    readonly layer: FileLayer,
  ) {
    super(problems);
  }
}
