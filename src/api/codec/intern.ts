// Shared copies of the short strings decoding produces over and over: the
// same image, node name, label value, volume path or timestamp in every
// decoded pod. Each decoded string is otherwise a fresh heap string per
// object (JSON.parse shares only very short ones), so a cache of decoded pods
// holds thousands of copies of each. Process-wide and bounded: when a pool
// fills it starts over (strings already handed out stay valid; values seen
// again are pooled again), so unique values (uids, resourceVersions) cost a
// bounded amount. Synchronous; used by the decoders in convert.ts only.

/** Longer strings are rarely shared (certificates, messages, tokens): not pooled. */
export const MAX_POOLED_LENGTH = 64;
const MAX_STRINGS = 8192;
const MAX_TIMES = 1024;

let strings = new Map<string, string>();
let times = new Map<number, string>();

/** The pooled copy of `s` (s itself the first time). */
export function internString(s: string): string {
  if (s.length > MAX_POOLED_LENGTH) return s;
  const have = strings.get(s);
  if (have !== undefined) return have;
  if (strings.size >= MAX_STRINGS) strings = new Map();
  strings.set(s, s);
  return s;
}

/** `format(seconds)`, pooled by `seconds`: a timestamp's string is formatted once. */
export function internTime(seconds: number, format: (seconds: number) => string): string {
  const have = times.get(seconds);
  if (have !== undefined) return have;
  if (times.size >= MAX_TIMES) times = new Map();
  const s = format(seconds);
  times.set(seconds, s);
  return s;
}

const SLOTS = 8192;
/** Direct-mapped by a hash of the bytes: a repeated string is found without decoding (or allocating) it again; a collision just replaces the slot. */
const byBytes: (string | undefined)[] = new Array<string | undefined>(SLOTS).fill(undefined);

/**
 * The string of `buf[start, end)` (UTF-8), pooled when it is short ASCII:
 * what the protobuf decoder reads every string field with. Cheaper than
 * decoding and then pooling: a hit compares bytes and allocates nothing.
 */
export function pooledUtf8(buf: Buffer, start: number, end: number): string {
  const n = end - start;
  if (n === 0) return '';
  if (n > MAX_POOLED_LENGTH) return buf.toString('utf8', start, end);
  let h = 0x811c9dc5 ^ n;
  for (let i = start; i < end; i++) {
    const c = buf[i]!;
    if (c >= 0x80) return internString(buf.toString('utf8', start, end));
    h = Math.imul(h ^ c, 0x01000193);
  }
  const slot = (h >>> 0) & (SLOTS - 1);
  const have = byBytes[slot];
  if (have !== undefined && have.length === n) {
    let i = 0;
    while (i < n && have.charCodeAt(i) === buf[start + i]) i++;
    if (i === n) return have;
  }
  // ASCII: latin1 decodes the same characters without UTF-8 validation.
  const s = buf.toString('latin1', start, end);
  byBytes[slot] = s;
  return s;
}

/**
 * V8's JSON.parse already shares string values of up to 10 characters; the
 * longer repeated ones (images, mount paths, field paths, timestamps) are a
 * fresh copy in every parsed object.
 */
const PARSER_SHARED_LENGTH = 10;
/** A bound on the walk: API objects are far shallower (the codec's own limit is MAX_JSON_DEPTH). */
const MAX_WALK_DEPTH = 128;

/**
 * Replaces the string values of a parsed JSON value (in place, at any depth
 * up to a bound) with their pooled copies: what a cache of JSON-decoded
 * objects does to hold each repeated value once, as the protobuf decoder's
 * strings already are. Keys are left alone (the parser interns them).
 */
export function internJsonStrings(v: unknown, depth = 0): void {
  if (typeof v !== 'object' || v === null || depth > MAX_WALK_DEPTH) return;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (typeof x === 'string') {
        if (x.length > PARSER_SHARED_LENGTH) v[i] = internString(x);
      } else if (typeof x === 'object') internJsonStrings(x, depth + 1);
    }
    return;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (typeof x === 'string') {
      if (x.length > PARSER_SHARED_LENGTH && x.length <= MAX_POOLED_LENGTH) o[k] = internString(x);
    } else if (typeof x === 'object') internJsonStrings(x, depth + 1);
  }
}
