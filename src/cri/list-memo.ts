// Decodes the answers to ListPodSandbox and ListContainers, reusing what the
// previous answers decoded for entries that did not change.
//
// The PLEG lists every sandbox and container once a second; in steady state
// nearly every entry is the same as a second ago. Decoding 110 pods' entries
// (labels and annotations are maps) three times over (wire, plain object,
// domain object) was the agent's largest steady-state cost, in the decoding
// and in the garbage collection after it. Here only a changed or new entry is
// decoded. Returned entries are frozen: they are shared between answers.
//
// What "changed" means: in CRI an entry's fields are set when the sandbox or
// container is created, and only its state moves afterwards (no call updates
// a label, an annotation, the image or the metadata). So an entry is the one
// decoded before when its ID, its state and its length are the same. The
// bytes themselves cannot be compared: containerd writes map entries in Go's
// random map order, so the same entry comes back in different bytes. The walk
// over an entry's fields stops once it has ID and state (fields 1 and 3 or 6,
// which containerd writes first; a READY sandbox's state is 0, which proto3
// leaves out, so that walk goes to the end, skipping each field by its
// length). Hashing every byte of every entry, as this did before, was most of
// the agent's steady-state CPU once the agent ran without V8's optimizing
// compiler (bin/agent.js).
import type { Reader as ReaderT, Type } from 'protobufjs';
import { WIRE_DECODE_OPTIONS } from './proto.js';

/** Entries not seen in this many answers are forgotten (a removed container). */
const IDLE_ANSWERS = 64;
const WIRE_VARINT = 0;
const WIRE_LENGTH_DELIMITED = 2;
const ID_TAG = (1 << 3) | WIRE_LENGTH_DELIMITED;

type ReaderCtor = { create(buf: Uint8Array): ReaderT };

interface Memo<T> {
  len: number;
  state: number;
  value: T;
  seen: number;
}

export class ListMemo<T extends object> {
  private readonly entries = new Map<string, Memo<T>>();
  private answers = 0;

  /**
   * @param field      the repeated field of the response holding the entries
   * @param item       the entry's message type; its field 1 is the entry's ID
   * @param stateField the entry's state (an enum) field
   * @param convert    wire object -> domain object
   */
  constructor(
    private readonly reader: ReaderCtor,
    private readonly field: number,
    private readonly item: Type,
    stateField: number,
    private readonly convert: (wire: never) => T,
  ) {
    this.stateTag = (stateField << 3) | WIRE_VARINT;
  }

  private readonly stateTag: number;

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
    const to = r.len;
    let id: string | undefined;
    let state = -1; // proto3 leaves a zero enum out: absent means 0
    while (r.pos < to && (id === undefined || state < 0)) {
      const tag = r.uint32();
      if (tag === ID_TAG && id === undefined) id = r.string();
      else if (tag === this.stateTag && state < 0) state = r.uint32();
      else r.skipType(tag & 7);
    }
    if (state < 0) state = 0;
    const len = to - from;
    const hit = id === undefined ? undefined : this.entries.get(id);
    if (hit && hit.len === len && hit.state === state) {
      hit.seen = answer;
      return hit.value;
    }
    const value = deepFreeze(this.convert(this.item.toObject(this.item.decode(bytes.subarray(from, to)), WIRE_DECODE_OPTIONS) as never));
    if (id !== undefined) this.entries.set(id, { len, state, value, seen: answer });
    return value;
  }

  /** Entries remembered (for tests). */
  get size(): number {
    return this.entries.size;
  }
}

function deepFreeze<T extends object>(v: T): T {
  for (const x of Object.values(v)) if (x !== null && typeof x === 'object' && !Object.isFrozen(x)) deepFreeze(x as object);
  return Object.freeze(v);
}
