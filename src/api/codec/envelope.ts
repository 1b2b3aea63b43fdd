// The protobuf envelope of §4.9: magic `6b 38 73 00` + runtime.Unknown
// {typeMeta{apiVersion, kind}, raw, contentEncoding, contentType}. Hand-coded
// (four fields, fixed shape) so stored objects can be unwrapped without a
// copy. Pure and synchronous; decode errors carry upstream's messages.

import { CodecError } from './errors.js';
import { WireReader, varintLength } from './wire.js';

export const ENVELOPE_MAGIC: Readonly<Buffer> = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** What identifies an object's schema: the envelope's TypeMeta, the JSON form's apiVersion and kind. */
export interface TypeMeta {
  apiVersion: string;
  kind: string;
}

export interface Envelope {
  typeMeta: TypeMeta;
  /** The object's message bytes: a view into the input, not a copy. */
  raw: Buffer;
  contentEncoding: string;
  contentType: string;
}

function lenField(tag: number, n: number): number {
  return tag === 0 ? 0 : 1 + varintLength(n) + n;
}

/**
 * Wraps a message in the envelope. contentEncoding and contentType are
 * written empty, as kube-apiserver does (Go writes non-pointer strings
 * always), so the bytes equal upstream's for the same message.
 */
export function encodeEnvelope(tm: TypeMeta, raw: Uint8Array): Buffer {
  return encodeEnvelopeWith(tm, raw.length, (out, p) => {
    out.set(raw, p);
    return p + raw.length;
  });
}

/**
 * The envelope of a message of `rawLength` bytes that `writeRaw` writes at
 * offset `p` of `out` (returning the offset after it): one allocation for the
 * whole response, used for Lists built from stored items.
 */
export function encodeEnvelopeWith(tm: TypeMeta, rawLength: number, writeRaw: (out: Buffer, p: number) => number): Buffer {
  const av = Buffer.byteLength(tm.apiVersion);
  const k = Buffer.byteLength(tm.kind);
  const tmLen = lenField(1, av) + lenField(1, k);
  const total = 4 + lenField(1, tmLen) + lenField(1, rawLength) + 4;
  const out = Buffer.allocUnsafe(total);
  ENVELOPE_MAGIC.copy(out, 0);
  let p = 4;
  out[p++] = 0x0a;
  p = putVarint(out, p, tmLen);
  out[p++] = 0x0a;
  p = putVarint(out, p, av);
  p += out.write(tm.apiVersion, p, 'utf8');
  out[p++] = 0x12;
  p = putVarint(out, p, k);
  p += out.write(tm.kind, p, 'utf8');
  out[p++] = 0x12;
  p = putVarint(out, p, rawLength);
  const end = writeRaw(out, p);
  if (end !== p + rawLength) throw new CodecError('EWIRE', `envelope body wrote ${end - p} bytes, announced ${rawLength}`);
  p = end;
  out[p++] = 0x1a;
  out[p++] = 0x00;
  out[p++] = 0x22;
  out[p++] = 0x00;
  return out;
}

/** Writes `n` as a varint at `p`; returns the offset after it. */
export function putVarint(out: Buffer, p: number, n: number): number {
  while (n >= 128) {
    out[p++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  out[p++] = n;
  return p;
}

/** True when `buf` starts with the envelope's magic bytes. */
export function hasEnvelopeMagic(buf: Uint8Array): boolean {
  return buf.length >= 4 && buf[0] === 0x6b && buf[1] === 0x38 && buf[2] === 0x73 && buf[3] === 0x00;
}

/** Unwraps an envelope; throws CodecError EENVELOPE with upstream's messages. */
export function decodeEnvelope(buf: Uint8Array): Envelope {
  if (buf.length === 0) throw new CodecError('EENVELOPE', 'empty data');
  if (!hasEnvelopeMagic(buf)) throw new CodecError('EENVELOPE', 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  if (buf.length === 4) throw new CodecError('EENVELOPE', 'empty body');
  const r = new WireReader(buf, 4);
  const env: Envelope = { typeMeta: { apiVersion: '', kind: '' }, raw: r.buf.subarray(0, 0), contentEncoding: '', contentType: '' };
  try {
    while (r.pos < r.end) {
      const tag = r.uint32();
      const id = tag >>> 3;
      const wt = tag & 7;
      if (wt !== 2 || id < 1 || id > 4) {
        r.skip(wt);
        continue;
      }
      if (id === 1) {
        const n = r.len();
        const end = r.pos + n;
        while (r.pos < end) {
          const t = r.uint32();
          if (t === 0x0a) env.typeMeta.apiVersion = r.string();
          else if (t === 0x12) env.typeMeta.kind = r.string();
          else r.skip(t & 7);
        }
      } else if (id === 2) env.raw = r.bytes();
      else if (id === 3) env.contentEncoding = r.string();
      else env.contentType = r.string();
    }
  } catch (e) {
    if (e instanceof CodecError) throw new CodecError('EENVELOPE', `invalid protobuf envelope: ${e.message}`, { cause: e });
    throw e;
  }
  if (env.typeMeta.kind === '') throw new CodecError('EENVELOPE', "Object 'Kind' is missing in protobuf envelope");
  if (env.contentEncoding !== '') throw new CodecError('EENVELOPE', `unsupported contentEncoding ${JSON.stringify(env.contentEncoding)} in protobuf envelope`);
  return env;
}
