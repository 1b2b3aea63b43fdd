// A List page assembled from stored envelopes without decoding them: the
// server stores each object as its §4.9 envelope with no resourceVersion (the
// store's revision is the version), so each item is the envelope's `raw`
// message with `metadata.resourceVersion` spliced into its ObjectMeta, at the
// place field order puts it: the bytes equal those of encoding the decoded
// object with its version set. Pure and synchronous; called per list page by
// the server's wire codec, one output allocation per page.

import { encodeEnvelope, encodeEnvelopeWith, putVarint, type TypeMeta } from './envelope.js';
import { CodecError } from './errors.js';
import { WireReader, varintLength } from './wire.js';

/** One stored object: its envelope bytes and the version it is read at. */
export interface StoredItem {
  envelope: Uint8Array;
  resourceVersion: string;
}

/** Where a kind's version lives: `metadata` (an ObjectMeta) and, in it, `resourceVersion`. */
export interface VersionSlot {
  metadataId: number;
  resourceVersionId: number;
}

/** One item's layout: the ObjectMeta's bounds in `raw` and the splice. */
interface ItemLayout {
  raw: Buffer;
  rv: string;
  rvLength: number;
  /** Offset of the metadata field's tag in raw (raw.length when absent: inserted first). */
  metaTag: number;
  /** Content bounds of the metadata message (equal when absent). */
  metaStart: number;
  metaEnd: number;
  /** Where the resourceVersion field goes inside the metadata content. */
  insertAt: number;
  /** An existing resourceVersion field in the metadata, dropped ([dropStart, dropEnd)). */
  dropStart: number;
  dropEnd: number;
  /** Length of the new metadata content and of the whole item. */
  metaLen: number;
  itemLen: number;
}

const tagOf = (id: number, wireType: number): number => (id << 3) | wireType;

function layout(raw: Buffer, rvText: string, slot: VersionSlot): ItemLayout {
  const rvLength = Buffer.byteLength(rvText);
  const r = new WireReader(raw);
  let metaTag = -1;
  let metaStart = 0;
  let metaEnd = 0;
  let firstLater = -1;
  while (r.pos < r.end) {
    const at = r.pos;
    const tag = r.uint32();
    if (tag >>> 3 === slot.metadataId && (tag & 7) === 2) {
      const n = r.len();
      metaTag = at;
      metaStart = r.pos;
      metaEnd = r.pos + n;
      break;
    }
    if (tag >>> 3 > slot.metadataId && firstLater < 0) firstLater = at;
    r.skip(tag & 7);
  }
  // No metadata at all: one holding only the version goes where field order puts it.
  if (metaTag < 0) metaTag = metaStart = metaEnd = firstLater < 0 ? raw.length : firstLater;
  let insertAt = -1;
  let dropStart = metaStart;
  let dropEnd = metaStart;
  const m = new WireReader(raw, metaStart, metaEnd);
  while (m.pos < metaEnd) {
    const at = m.pos;
    const tag = m.uint32();
    const id = tag >>> 3;
    if (id === slot.resourceVersionId) {
      m.skip(tag & 7);
      dropStart = at;
      dropEnd = m.pos;
      continue;
    }
    if (id > slot.resourceVersionId && insertAt < 0) insertAt = at;
    m.skip(tag & 7);
  }
  if (insertAt < 0) insertAt = metaEnd;
  const rvField = 1 + varintLength(rvLength) + rvLength;
  const metaLen = metaEnd - metaStart - (dropEnd - dropStart) + rvField;
  const oldMetaField = metaEnd - metaTag;
  const itemLen = raw.length - oldMetaField + 1 + varintLength(metaLen) + metaLen;
  return { raw, rv: rvText, rvLength, metaTag, metaStart, metaEnd, insertAt, dropStart, dropEnd, metaLen, itemLen };
}

/** Copies raw[from, to) into out at p; empty ranges cost nothing (most of a page's ranges are). */
function copyRange(out: Buffer, p: number, raw: Buffer, from: number, to: number): number {
  return to > from ? p + raw.copy(out, p, from, to) : p;
}

/** Copies raw[from, to) minus the dropped range; returns the new write offset. */
function copyKept(out: Buffer, p: number, l: ItemLayout, from: number, to: number): number {
  const a = Math.max(from, Math.min(to, l.dropStart));
  p = copyRange(out, p, l.raw, from, a);
  const b = Math.min(to, Math.max(from, l.dropEnd));
  return copyRange(out, p, l.raw, b, to);
}

function writeItem(out: Buffer, start: number, l: ItemLayout, slot: VersionSlot): number {
  let p = start;
  p = copyRange(out, p, l.raw, 0, l.metaTag);
  p = putVarint(out, p, tagOf(slot.metadataId, 2));
  p = putVarint(out, p, l.metaLen);
  p = copyKept(out, p, l, l.metaStart, l.insertAt);
  p = putVarint(out, p, tagOf(slot.resourceVersionId, 2));
  p = putVarint(out, p, l.rvLength);
  p += out.write(l.rv, p, 'utf8');
  p = copyKept(out, p, l, l.insertAt, l.metaEnd);
  return copyRange(out, p, l.raw, l.metaEnd, l.raw.length);
}

/**
 * The bytes every envelope of `tm` written by encodeEnvelope starts with:
 * magic, then typeMeta (field 1). Compared instead of decoding each stored
 * envelope's typeMeta into strings.
 */
export function envelopeHead(tm: TypeMeta): Buffer {
  const full = encodeEnvelope(tm, Buffer.alloc(0));
  // magic + 0x0a + len(typeMeta) + typeMeta; what follows is raw (0x12 ...).
  const r = new WireReader(full, 5);
  const n = r.len();
  return Buffer.from(full.subarray(0, r.pos + n));
}

/**
 * `envelope`'s raw message when it is laid out as encodeEnvelope writes it
 * (the given head, raw, then empty contentEncoding and contentType or
 * nothing); undefined otherwise (the caller decodes it the general way).
 */
export function rawAfterHead(head: Buffer, envelope: Uint8Array): Buffer | undefined {
  const buf = Buffer.isBuffer(envelope) ? envelope : Buffer.from(envelope.buffer, envelope.byteOffset, envelope.byteLength);
  if (buf.length <= head.length || buf.compare(head, 0, head.length, 0, head.length) !== 0 || buf[head.length] !== 0x12) return undefined;
  const r = new WireReader(buf, head.length + 1);
  const n = r.len();
  const start = r.pos;
  const end = start + n;
  const rest = buf.length - end;
  if (rest !== 0 && !(rest === 4 && buf[end] === 0x1a && buf[end + 1] === 0 && buf[end + 2] === 0x22 && buf[end + 3] === 0)) return undefined;
  return buf.subarray(start, end);
}

/**
 * The envelope of `listTm` ({metadata = 1: ListMeta, items = 2}) holding
 * `items`' messages with their versions set. `unwrap` opens one envelope and
 * checks its kind (throws CodecError EKIND for another kind).
 */
export function assembleStoredList(listTm: TypeMeta, listMeta: Uint8Array, items: readonly StoredItem[], opts: { slot: VersionSlot; unwrap: (envelope: Uint8Array) => Buffer }): Buffer {
  const layouts = items.map((it) => layout(opts.unwrap(it.envelope), it.resourceVersion, opts.slot));
  let len = 1 + varintLength(listMeta.length) + listMeta.length;
  for (const l of layouts) len += 1 + varintLength(l.itemLen) + l.itemLen;
  return encodeEnvelopeWith(listTm, len, (out, start) => {
    let p = start;
    out[p++] = 0x0a;
    p = putVarint(out, p, listMeta.length);
    out.set(listMeta, p);
    p += listMeta.length;
    for (const l of layouts) {
      out[p++] = 0x12;
      p = putVarint(out, p, l.itemLen);
      const end = writeItem(out, p, l, opts.slot);
      if (end !== p + l.itemLen) throw new CodecError('EWIRE', `list item wrote ${end - p} bytes, announced ${l.itemLen}`);
      p = end;
    }
    return p;
  });
}
