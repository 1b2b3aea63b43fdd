// Decodes the answers to ListPodSandbox and ListContainers, reusing what the
// previous answers decoded for entries whose bytes did not change.
//
// The PLEG lists every sandbox and container once a second; in steady state
// nearly every entry is the same as a second ago. Decoding 110 pods' entries
// (labels and annotations are maps) three times over (wire, plain object,
// domain object) was the agent's largest steady-state cost, in the decoding
// and in the garbage collection after it. Here each entry's bytes are compared
// with what was last decoded for the same ID, and only a changed or new entry
// is decoded. Returned entries are frozen: they are shared between answers.
//
// The comparison cannot be byte for byte: containerd writes map entries
// (labels, annotations) in Go's random map order, so the same entry comes back
// in different bytes. It compares the entry's length and two order-independent
// 32-bit sums of hashes of its top-level fields (every map entry is one such
// field), which differ for any real change but a ~2^-64 chance.
import type { Reader as ReaderT, Type } from 'protobufjs';
import { WIRE_DECODE_OPTIONS } from './proto.js';

/** Entries not seen in this many answers are forgotten (a removed container). */
const IDLE_ANSWERS = 64;
const WIRE_LENGTH_DELIMITED = 2;

type ReaderCtor = { create(buf: Uint8Array): ReaderT };

interface Memo<T> {
  len: number;
  sumA: number;
  sumB: number;
  value: T;
  seen: number;
}

export class ListMemo<T extends object> {
  private readonly entries = new Map<string, Memo<T>>();
  private answers = 0;

  /**
   * @param field   the repeated field of the response holding the entries
   * @param item    the entry's message type; its field 1 is the entry's ID
   * @param convert wire object -> domain object
   */
  constructor(
    private readonly reader: ReaderCtor,
    private readonly field: number,
    private readonly item: Type,
    private readonly convert: (wire: never) => T,
  ) {}

  decode(bytes: Uint8Array): T[] {
    const answer = ++this.answers;
    const out: T[] = [];
    // One reader walks the answer and, with its end narrowed, each entry: an
    // unchanged entry costs no reader and no view of its bytes.
    const r = this.reader.create(bytes);
    const end = r.len;
    while (r.pos < end) {
      const tag = r.uint32();
      if (tag >>> 3 !== this.field || (tag & 7) !== WIRE_LENGTH_DELIMITED) {
        r.skipType(tag & 7);
        continue;
      }
      const len = r.uint32();
      const from = r.pos;
      if (from + len > end) throw new RangeError(`index out of range: ${from} + ${len} > ${end}`);
      r.len = from + len;
      out.push(this.entry(r, bytes, from, answer));
      r.pos = from + len;
      r.len = end;
    }
    if (answer % IDLE_ANSWERS === 0) {
      for (const [id, m] of this.entries) if (answer - m.seen > IDLE_ANSWERS) this.entries.delete(id);
    }
    return out;
  }

  /** The entry in bytes [from, r.len), r positioned at from. */
  private entry(r: ReaderT, bytes: Uint8Array, from: number, answer: number): T {
    // One walk over the top-level fields: the ID (field 1) and the two sums.
    const to = r.len;
    let id: string | undefined;
    let sumA = 0;
    let sumB = 0;
    while (r.pos < to) {
      const start = r.pos;
      const tag = r.uint32();
      if (id === undefined && tag === ((1 << 3) | WIRE_LENGTH_DELIMITED)) id = r.string();
      else r.skipType(tag & 7);
      hashField(bytes, start, r.pos);
      sumA = (sumA + hashA) | 0;
      sumB = (sumB + hashB) | 0;
    }
    const len = to - from;
    const hit = id === undefined ? undefined : this.entries.get(id);
    if (hit && hit.len === len && hit.sumA === sumA && hit.sumB === sumB) {
      hit.seen = answer;
      return hit.value;
    }
    const value = deepFreeze(this.convert(this.item.toObject(this.item.decode(bytes.subarray(from, to)), WIRE_DECODE_OPTIONS) as never));
    if (id !== undefined) this.entries.set(id, { len, sumA, sumB, value, seen: answer });
    return value;
  }

  /** Entries remembered (for tests). */
  get size(): number {
    return this.entries.size;
  }
}

// hashField's results (module state rather than a returned pair: no allocation per field).
let hashA = 0;
let hashB = 0;

/** FNV-1a and a murmur-style mix over bytes [from, to): two independent 32-bit hashes. */
function hashField(bytes: Uint8Array, from: number, to: number): void {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = from; i < to; i++) {
    const x = bytes[i]!;
    a = Math.imul(a ^ x, 0x01000193);
    b = Math.imul(b ^ x, 0x5bd1e995);
    b ^= b >>> 15;
  }
  hashA = a;
  hashB = b;
}

function deepFreeze<T extends object>(v: T): T {
  for (const x of Object.values(v)) if (x !== null && typeof x === 'object' && !Object.isFrozen(x)) deepFreeze(x as object);
  return Object.freeze(v);
}
