// The protobuf wire reader used by every decoder in this folder, and small
// varint helpers for the encoders. Our own reader rather than protobufjs'
// because the API's JSON form wants int64 as plain numbers (protobufjs hands
// back Long objects when `long` is installed) and strings straight from the
// Buffer. Synchronous, allocation-free apart from the values it returns.
// Encoding uses protobufjs' Writer (fork/ldelim), passed in by the loader.

import { CodecError } from './errors.js';

export class WireReader {
  readonly buf: Buffer;
  pos: number;
  readonly end: number;

  constructor(buf: Uint8Array, start = 0, end = buf.length) {
    this.buf = Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
    this.pos = start;
    this.end = end;
  }

  private truncated(): CodecError {
    return new CodecError('EWIRE', `protobuf: unexpected end of data at offset ${this.pos}`, { offset: this.pos });
  }

  /** A varint of at most 32 significant bits (tags, lengths, int32, bool). */
  uint32(): number {
    const b = this.buf;
    let value = 0;
    let shift = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw this.truncated();
      const byte = b[this.pos++] as number;
      if (shift < 32) value |= (byte & 0x7f) << shift;
      if (byte < 0x80) return value >>> 0;
      shift += 7;
    }
    throw new CodecError('EWIRE', `protobuf: varint overflow at offset ${this.pos}`, { offset: this.pos });
  }

  int32(): number {
    return this.uint32() | 0;
  }

  /** int64 as a JS number (exact up to 2^53; negative values are two's complement on the wire). */
  int64(): number {
    const b = this.buf;
    let lo = 0;
    let hi = 0;
    let i = 0;
    for (; i < 10; i++) {
      if (this.pos >= this.end) throw this.truncated();
      const byte = b[this.pos++] as number;
      if (i < 4) lo |= (byte & 0x7f) << (i * 7);
      else if (i === 4) {
        lo |= (byte & 0x0f) << 28;
        hi |= (byte & 0x7f) >> 4;
      } else hi |= (byte & 0x7f) << (i * 7 - 32);
      if (byte < 0x80) break;
    }
    if (i === 10) throw new CodecError('EWIRE', `protobuf: varint overflow at offset ${this.pos}`, { offset: this.pos });
    lo >>>= 0;
    hi >>>= 0;
    if (hi >= 0x80000000) return -((~hi >>> 0) * 4294967296 + (~lo >>> 0) + 1);
    return hi * 4294967296 + lo;
  }

  bool(): boolean {
    return this.uint32() !== 0;
  }

  /** Length of a length-delimited value, checked against the end. */
  len(): number {
    const n = this.uint32();
    if (this.pos + n > this.end) throw this.truncated();
    return n;
  }

  string(): string {
    const n = this.len();
    const start = this.pos;
    this.pos += n;
    return this.buf.toString('utf8', start, start + n);
  }

  /** A view into the input (no copy): callers convert or copy before the input is reused. */
  bytes(): Buffer {
    const n = this.len();
    const s = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return s;
  }

  skip(wireType: number): void {
    switch (wireType) {
      case 0:
        this.int64();
        return;
      case 1:
        this.pos += 8;
        break;
      case 2: {
        // len() moves pos past the length itself: read it before adding (`pos += len()` would add to the old pos).
        const n = this.len();
        this.pos += n;
        return;
      }
      case 5:
        this.pos += 4;
        break;
      default:
        throw new CodecError('EWIRE', `protobuf: unsupported wire type ${wireType} at offset ${this.pos}`, { offset: this.pos });
    }
    if (this.pos > this.end) throw this.truncated();
  }
}

/** Bytes of `n` (≥ 0) as a varint; negatives take 10. */
export function varintLength(n: number): number {
  if (n < 0) return 10;
  let len = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    len++;
  }
  return len;
}
