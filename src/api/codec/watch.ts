// Protobuf watch streams: each event is a frame of a 4-byte big-endian length
// and a raw (no magic, no envelope) metav1.WatchEvent{type = 1, object = 2:
// RawExtension{raw = 1: the object's full envelope}}. encodeWatchFrame is
// called by the server once per event per watcher encoding (the caller may
// share the envelope bytes between watchers); WatchFrameDecoder is the
// client's incremental reader: feed it chunks as they arrive, it returns the
// complete frames. Neither blocks nor keeps timers.

import { CodecError } from './errors.js';
import { putVarint } from './envelope.js';
import { WireReader, varintLength } from './wire.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchFrame {
  type: string;
  /** The object's envelope (magic + Unknown); decode with ApiCodec.decode. */
  object: Buffer;
}

/** Upstream's client refuses frames over 16 MiB by default; so do we, before buffering them. */
export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** One frame: length prefix + WatchEvent{type, object{raw = envelope}}. */
export function encodeWatchFrame(type: WatchEventType | string, envelope: Uint8Array): Buffer {
  const t = Buffer.byteLength(type);
  const objLen = 1 + varintLength(envelope.length) + envelope.length;
  const body = 1 + varintLength(t) + t + 1 + varintLength(objLen) + objLen;
  const out = Buffer.allocUnsafe(4 + body);
  out.writeUInt32BE(body, 0);
  let p = 4;
  out[p++] = 0x0a;
  p = putVarint(out, p, t);
  p += out.write(type, p, 'utf8');
  out[p++] = 0x12;
  p = putVarint(out, p, objLen);
  out[p++] = 0x0a;
  p = putVarint(out, p, envelope.length);
  out.set(envelope, p);
  return out;
}

/** Decodes one frame's payload (without the length prefix). */
export function decodeWatchEvent(payload: Buffer): WatchFrame {
  const r = new WireReader(payload);
  const ev: WatchFrame = { type: '', object: payload.subarray(0, 0) };
  while (r.pos < r.end) {
    const tag = r.uint32();
    if (tag === 0x0a) ev.type = r.string();
    else if (tag === 0x12) {
      const n = r.len();
      const end = r.pos + n;
      while (r.pos < end) {
        const t = r.uint32();
        if (t === 0x0a) ev.object = r.bytes();
        else r.skip(t & 7);
      }
    } else r.skip(tag & 7);
  }
  if (ev.type === '') throw new CodecError('EWIRE', 'watch event without a type');
  return ev;
}

/** Incremental frame reader for one stream; not shared between streams. */
export class WatchFrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Bytes the first buffered frame needs in total, once its header is known: no concatenation until then. */
  private expected = 0;
  private readonly maxFrameBytes: number;

  constructor(opts: { maxFrameBytes?: number } = {}) {
    this.maxFrameBytes = opts.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  }

  /** Adds bytes; returns every frame completed by them, in order. Throws on an oversized or malformed frame. */
  push(chunk: Uint8Array): WatchFrame[] {
    if (chunk.length > 0) {
      this.chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      this.buffered += chunk.length;
    }
    const out: WatchFrame[] = [];
    if (this.buffered < 4 || this.buffered < this.expected) return out;
    let buf = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.buffered);
    let p = 0;
    while (buf.length - p >= 4) {
      const n = buf.readUInt32BE(p);
      if (n > this.maxFrameBytes) throw new CodecError('EWIRE', `watch frame of ${n} bytes exceeds the limit of ${this.maxFrameBytes}`);
      if (buf.length - p - 4 < n) {
        this.expected = 4 + n;
        break;
      }
      this.expected = 0;
      // Copy: the event outlives this chunk, and views would pin the whole read buffer.
      out.push(decodeWatchEvent(Buffer.from(buf.subarray(p + 4, p + 4 + n))));
      p += 4 + n;
    }
    buf = buf.subarray(p);
    this.chunks = buf.length === 0 ? [] : [buf];
    this.buffered = buf.length;
    return out;
  }

  /** Bytes of an incomplete frame still held; a stream that ends with pending > 0 was cut mid-frame. */
  get pending(): number {
    return this.buffered;
  }
}
