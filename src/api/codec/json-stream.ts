// Splits a JSON watch stream into its documents: a sequence of self-delimiting
// JSON objects or arrays, separated by any whitespace (upstream writes one per
// line, but readers must not rely on it). Bytes are scanned as UTF-8 (string
// delimiters and brackets are ASCII, so multi-byte characters split across
// chunks are safe). One splitter per stream; push() never blocks.

import { CodecError } from './errors.js';

export const DEFAULT_MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

export class JsonStreamSplitter {
  private parts: Buffer[] = [];
  private partBytes = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private consumed = 0;
  private readonly maxDocumentBytes: number;

  constructor(opts: { maxDocumentBytes?: number } = {}) {
    this.maxDocumentBytes = opts.maxDocumentBytes ?? DEFAULT_MAX_DOCUMENT_BYTES;
  }

  /** Adds bytes; returns the documents they complete (each a Buffer of one JSON value). */
  push(chunk: Uint8Array | string): Buffer[] {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const out: Buffer[] = [];
    let start = this.depth > 0 ? 0 : -1;
    for (let i = 0; i < buf.length; i++) {
      const c = buf[i] as number;
      if (this.depth === 0) {
        if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
        if (c !== 0x7b && c !== 0x5b) {
          throw new CodecError('ESYNTAX', `invalid character ${JSON.stringify(String.fromCharCode(c))} looking for beginning of value at offset ${this.consumed + i}`, { offset: this.consumed + i });
        }
        start = i;
        this.depth = 1;
        continue;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c) this.escaped = true;
        else if (c === 0x22) this.inString = false;
        continue;
      }
      if (c === 0x22) this.inString = true;
      else if (c === 0x7b || c === 0x5b) this.depth++;
      else if (c === 0x7d || c === 0x5d) {
        if (--this.depth === 0) {
          const piece = buf.subarray(start, i + 1);
          out.push(this.parts.length === 0 ? Buffer.from(piece) : Buffer.concat([...this.parts, piece]));
          this.parts = [];
          this.partBytes = 0;
          start = -1;
        }
      }
    }
    if (this.depth > 0 && start >= 0) {
      const rest = buf.subarray(start);
      this.partBytes += rest.length;
      if (this.partBytes > this.maxDocumentBytes) throw new CodecError('ESYNTAX', `JSON document exceeds the limit of ${this.maxDocumentBytes} bytes`);
      // Copy: the caller may reuse its chunk buffer.
      this.parts.push(Buffer.from(rest));
    }
    this.consumed += buf.length;
    return out;
  }

  /** True when the stream stopped inside a document. */
  get pending(): boolean {
    return this.depth > 0;
  }
}
