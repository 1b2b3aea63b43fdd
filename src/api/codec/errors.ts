// Errors of the API codec. Thrown synchronously by encode/decode and the
// strict JSON reader; the server turns them into 400 BadRequest (its decode
// filter), the client into a decode failure of the response. `field` is the
// JSON path of the offending value when known, `offset` the byte offset in
// the input for syntax errors.

export type CodecErrorCode =
  | 'ESYNTAX' // the bytes are not valid JSON / YAML
  | 'EDEPTH' // nesting deeper than MAX_JSON_DEPTH
  | 'EENVELOPE' // not a protobuf envelope, or a truncated one
  | 'EWIRE' // malformed protobuf inside the envelope
  | 'ETYPE' // a value of the wrong JSON type while encoding
  | 'EKIND' // no message type for this apiVersion/kind
  | 'ESCHEMA'; // proto/platform is missing or does not define a served kind (an installation fault)

export class CodecError extends Error {
  readonly code: CodecErrorCode;
  readonly field: string | undefined;
  readonly offset: number | undefined;
  /** The message without the field path (what `field` was prefixed to). */
  readonly detail: string;

  constructor(code: CodecErrorCode, message: string, opts: { field?: string; offset?: number; detail?: string; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'CodecError';
    this.code = code;
    this.field = opts.field;
    this.offset = opts.offset;
    this.detail = opts.detail ?? message;
  }
}

export function isCodecError(e: unknown): e is CodecError {
  return e instanceof CodecError;
}

/** Appends a path segment the way field paths read: `spec` + `containers` -> `spec.containers`, + 0 -> `spec.containers[0]`. */
export function joinPath(parent: string, seg: string | number): string {
  if (typeof seg === 'number') return `${parent}[${seg}]`;
  return parent === '' ? seg : `${parent}.${seg}`;
}
