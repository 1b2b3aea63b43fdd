// Compiles the JSON-form <-> protobuf converters of every message plan, once
// per process (loader in index.ts). Each field gets its encoder and decoder
// closure chosen here, so encoding and decoding an object never consult the
// schema's metadata per field. Synchronous and pure; errors are CodecErrors
// naming the field path.

import { CodecError } from './errors.js';
import { type FieldPlan, type MessagePlan, type ProtoWriter, type ValueDecoder, type ValueEncoder, type ValueKind, WIRE_TYPE } from './plan.js';
import { internTime, pooledUtf8 } from './intern.js';
import { decodeSpan } from './omit.js';
import { objectMaker } from './shape.js';
import { formatMicroTime, formatTime, parseRfc3339 } from './special.js';
import { type WireReader, varintLength } from './wire.js';

/** What a RawExtension's bytes become in JSON when they hold a protobuf envelope. */
export type RawBytesHook = (raw: Buffer) => unknown;

const typeError = (expected: string, v: unknown): CodecError =>
  new CodecError('ETYPE', `expected ${expected}, got ${Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v}`, { field: '' });

/** Re-throws `e` with `seg` prepended to its field path. */
function within(e: unknown, seg: string | number): never {
  if (!(e instanceof CodecError)) throw e;
  const inner = e.field ?? '';
  const head = typeof seg === 'number' ? `[${seg}]` : seg;
  const field = inner === '' ? head : inner.startsWith('[') ? `${head}${inner}` : `${head}.${inner}`;
  throw new CodecError(e.code, `${field}: ${e.detail}`, { field, detail: e.detail, cause: e.cause });
}

function str(v: unknown): string {
  if (typeof v !== 'string') throw typeError('string', v);
  return v;
}
function int(v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw typeError('integer', v);
  return v;
}

function secondsOf(v: unknown, what: string): { seconds: number; nanos: number } {
  const t = typeof v === 'string' ? parseRfc3339(v) : undefined;
  if (t === undefined) throw typeError(`${what} (RFC 3339)`, v);
  return t;
}

/** 0001-01-01T00:00:00Z in Unix seconds: Go's time.Time{}. */
const GO_ZERO_TIME = -62135596800;

function compileEncoder(kind: ValueKind, message: MessagePlan | undefined): ValueEncoder {
  switch (kind) {
    case 'string':
      return (v, w, tag) => void w.uint32(tag).string(str(v));
    case 'bool':
      return (v, w, tag) => {
        if (typeof v !== 'boolean') throw typeError('boolean', v);
        w.uint32(tag).bool(v);
      };
    case 'int32':
      return (v, w, tag) => void w.uint32(tag).int32(int(v));
    case 'int64':
      return (v, w, tag) => void w.uint32(tag).int64(int(v));
    case 'bytes':
      return (v, w, tag) => void w.uint32(tag).bytes(Buffer.from(str(v), 'base64'));
    case 'message': {
      const m = message as MessagePlan;
      return (v, w, tag) => {
        if (typeof v !== 'object' || v === null || Array.isArray(v)) throw typeError('object', v);
        w.uint32(tag).fork();
        m.encode(v as Record<string, unknown>, w);
        w.ldelim();
      };
    }
    case 'time':
      // Seconds only: the JSON form has second precision, so nanos would always be 0.
      // Go's zero time (year 1) is an empty message, as Go writes it.
      return (v, w, tag) => {
        const { seconds } = secondsOf(v, 'time');
        if (seconds === GO_ZERO_TIME) w.uint32(tag).uint32(0);
        else w.uint32(tag).uint32(1 + varintLength(seconds)).uint32(8).int64(seconds);
      };
    case 'microtime':
      return (v, w, tag) => {
        const { seconds, nanos } = secondsOf(v, 'time');
        const n = nanos - (nanos % 1000);
        const len = 1 + varintLength(seconds) + (n === 0 ? 0 : 1 + varintLength(n));
        w.uint32(tag).uint32(len).uint32(8).int64(seconds);
        if (n !== 0) w.uint32(16).int32(n);
      };
    case 'quantity':
      return (v, w, tag) => {
        const s = typeof v === 'number' && Number.isFinite(v) ? String(v) : str(v);
        const n = Buffer.byteLength(s);
        w.uint32(tag).uint32(1 + varintLength(n) + n).uint32(10).string(s);
      };
    case 'intorstring':
      return (v, w, tag) => {
        w.uint32(tag).fork();
        if (typeof v === 'number') {
          if (!Number.isInteger(v)) throw typeError('integer or string', v);
          w.uint32(8).int64(0).uint32(16).int32(v);
        } else if (typeof v === 'string') w.uint32(8).int64(1).uint32(26).string(v);
        else throw typeError('integer or string', v);
        w.ldelim();
      };
    case 'fieldsv1':
      return (v, w, tag) => {
        if (typeof v !== 'object' || v === null || Array.isArray(v)) throw typeError('object', v);
        w.uint32(tag).fork().uint32(10).string(JSON.stringify(v)).ldelim();
      };
    case 'rawextension':
      return (v, w, tag) => void w.uint32(tag).fork().uint32(10).string(JSON.stringify(v)).ldelim();
    case 'stringlist':
      return (v, w, tag) => {
        if (!Array.isArray(v)) throw typeError('array of strings', v);
        w.uint32(tag).fork();
        for (let i = 0; i < v.length; i++) {
          try {
            w.uint32(10).string(str(v[i]));
          } catch (e) {
            within(e, i);
          }
        }
        w.ldelim();
      };
  }
}

/** Reads a sub-message's length; returns where it ends. */
function subEnd(r: WireReader): number {
  const n = r.len();
  return r.pos + n;
}

/** A value that ran past its enclosing message is malformed input. */
function checkEnd(r: WireReader, end: number): void {
  if (r.pos !== end) throw new CodecError('EWIRE', `protobuf: value overruns its message at offset ${r.pos}`, { offset: r.pos });
}

function compileDecoder(kind: ValueKind, message: MessagePlan | undefined, rawHook: RawBytesHook): ValueDecoder {
  switch (kind) {
    case 'string':
      return (r) => {
        const n = r.len();
        const start = r.pos;
        r.pos += n;
        return pooledUtf8(r.buf, start, start + n);
      };
    case 'bool':
      return (r) => r.bool();
    case 'int32':
      return (r) => r.int32();
    case 'int64':
      return (r) => r.int64();
    case 'bytes':
      return (r) => r.bytes().toString('base64');
    case 'message': {
      const m = message as MessagePlan;
      return (r) => {
        const n = r.len();
        return m.decode(r, r.pos + n);
      };
    }
    case 'time':
    case 'microtime': {
      const micro = kind === 'microtime';
      return (r) => {
        let seconds = 0;
        let nanos = 0;
        const end = subEnd(r);
        // An empty message is Go's zero time: the field is left out, as JSON null would be.
        if (r.pos === end) return undefined;
        while (r.pos < end) {
          const tag = r.uint32();
          if (tag === 0x08) seconds = r.int64();
          else if (tag === 0x10) nanos = r.int32();
          else r.skip(tag & 7);
        }
        checkEnd(r, end);
        return micro ? formatMicroTime(seconds, nanos) : internTime(seconds, formatTime);
      };
    }
    case 'quantity':
      return (r) => {
        let s = '';
        const end = subEnd(r);
        while (r.pos < end) {
          const tag = r.uint32();
          if (tag === 0x0a) s = r.string();
          else r.skip(tag & 7);
        }
        checkEnd(r, end);
        return s;
      };
    case 'intorstring':
      return (r) => {
        let type = 0;
        let i = 0;
        let s = '';
        const end = subEnd(r);
        while (r.pos < end) {
          const tag = r.uint32();
          if (tag === 0x08) type = r.int64();
          else if (tag === 0x10) i = r.int32();
          else if (tag === 0x1a) s = r.string();
          else r.skip(tag & 7);
        }
        checkEnd(r, end);
        return type === 1 ? s : i;
      };
    case 'fieldsv1':
    case 'rawextension':
      return (r) => {
        let raw: Buffer | undefined;
        const end = subEnd(r);
        while (r.pos < end) {
          const tag = r.uint32();
          if (tag === 0x0a) raw = r.bytes();
          else r.skip(tag & 7);
        }
        checkEnd(r, end);
        if (raw === undefined || raw.length === 0) return undefined;
        if (kind === 'rawextension' && raw.length >= 4 && raw[0] === 0x6b && raw[1] === 0x38 && raw[2] === 0x73 && raw[3] === 0) return rawHook(raw);
        try {
          return JSON.parse(raw.toString('utf8')) as unknown;
        } catch (e) {
          throw new CodecError('EWIRE', `invalid JSON in ${kind === 'fieldsv1' ? 'FieldsV1' : 'RawExtension'}: ${(e as Error).message}`, { field: '' });
        }
      };
    case 'stringlist':
      return (r) => {
        const out: string[] = [];
        const end = subEnd(r);
        while (r.pos < end) {
          const tag = r.uint32();
          if (tag === 0x0a) out.push(r.string());
          else r.skip(tag & 7);
        }
        checkEnd(r, end);
        return out;
      };
  }
}

function compileMessage(m: MessagePlan): void {
  const fields = m.fields;
  const n = fields.length;
  m.encode = (obj, w) => {
    for (let i = 0; i < n; i++) {
      const f = fields[i] as FieldPlan;
      if (f.inline) {
        // Go writes embedded structs always; their fields come from this same object.
        w.uint32(f.tag).fork();
        (f.message as MessagePlan).encode(obj, w);
        w.ldelim();
        continue;
      }
      const v = obj[f.name];
      if (v === undefined || v === null) continue;
      try {
        if (f.label === 'optional') f.encodeValue(v, w, f.tag);
        else if (f.label === 'repeated') encodeRepeated(f, v, w);
        else encodeMap(f, v, w);
      } catch (e) {
        within(e, f.name);
      }
    }
  };
  const byId = m.byId;
  const create = objectMaker();
  m.create = create;
  m.decode = (r, end, into) => {
    const out: Record<string, unknown> = into ?? create();
    let grown: FieldPlan[] | undefined;
    while (r.pos < end) {
      const tag = r.uint32();
      const f = byId[tag >>> 3];
      const wt = tag & 7;
      if (f === undefined || (f.omittable && decodeSpan.omitting)) {
        r.skip(wt);
        continue;
      }
      try {
        if (f.inline && wt === 2) {
          const len = r.len();
          (f.message as MessagePlan).decode(r, r.pos + len, out);
        } else if (f.label === 'optional') {
          if (wt !== f.wireType) r.skip(wt);
          else {
            const v = f.decodeValue(r);
            if (v !== undefined) out[f.name] = v;
          }
        } else if (f.label === 'repeated') {
          if (decodeRepeated(f, r, wt, out)) (grown ??= []).push(f);
        } else decodeMapEntry(f, r, out);
      } catch (e) {
        within(e, f.name);
      }
    }
    checkEnd(r, end);
    // push() grows an array's store to 16+ slots; slice() keeps exactly its elements (a pod's six 1-element lists held ~0.7 KB of empty slots).
    if (grown !== undefined) for (const f of grown) out[f.name] = (out[f.name] as unknown[]).slice();
    return out;
  };
}

function encodeRepeated(f: FieldPlan, v: unknown, w: ProtoWriter): void {
  if (!Array.isArray(v)) throw typeError('array', v);
  for (let i = 0; i < v.length; i++) {
    const item: unknown = v[i];
    if (item === null || item === undefined) continue;
    try {
      f.encodeValue(item, w, f.tag);
    } catch (e) {
      within(e, i);
    }
  }
}

/** Appends one occurrence (or a packed run) to the field's array; true when it created the array. */
function decodeRepeated(f: FieldPlan, r: WireReader, wt: number, out: Record<string, unknown>): boolean {
  let arr = out[f.name] as unknown[] | undefined;
  const created = arr === undefined;
  if (arr === undefined) {
    arr = [];
    out[f.name] = arr;
  }
  if (wt === 2 && f.wireType === 0) {
    // Packed numbers: accepted although proto2 senders (Go) write them unpacked.
    const n = r.len();
    const end = r.pos + n;
    while (r.pos < end) arr.push(f.decodeValue(r));
    return created;
  }
  if (wt !== f.wireType) {
    r.skip(wt);
    return created;
  }
  try {
    arr.push(f.decodeValue(r));
  } catch (e) {
    within(e, arr.length);
  }
  return created;
}

function encodeMap(f: FieldPlan, v: unknown, w: ProtoWriter): void {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw typeError('object', v);
  const valueTag = (2 << 3) | f.wireType;
  for (const key in v) {
    const val = (v as Record<string, unknown>)[key];
    w.uint32(f.tag).fork().uint32(10).string(key);
    try {
      // A null value is Go's zero value: the entry carries the key only.
      if (val !== null && val !== undefined) f.encodeValue(val, w, valueTag);
    } catch (e) {
      within(e, key);
    }
    w.ldelim();
  }
}

const ZERO: Partial<Record<ValueKind, unknown>> = { string: '', bytes: '', bool: false, int32: 0, int64: 0, quantity: '0', intorstring: 0, stringlist: [] };

function decodeMapEntry(f: FieldPlan, r: WireReader, out: Record<string, unknown>): void {
  let map = out[f.name] as Record<string, unknown> | undefined;
  if (map === undefined) {
    map = {};
    out[f.name] = map;
  }
  let key = '';
  let value: unknown;
  const end = subEnd(r);
  const valueTag = (2 << 3) | f.wireType;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 0x0a) key = r.string();
    else if (tag === valueTag) value = f.decodeValue(r);
    else r.skip(tag & 7);
  }
  checkEnd(r, end);
  if (value === undefined) value = f.kind === 'message' ? {} : (ZERO[f.kind] ?? null);
  if (key === '__proto__') Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
  else map[key] = value;
}

/** Attaches encoders and decoders to every plan; call once after buildPlans. */
export function compilePlans(plans: Map<string, MessagePlan>, rawHook: RawBytesHook): void {
  for (const m of plans.values()) {
    for (const f of m.fields) {
      f.wireType = WIRE_TYPE[f.kind];
      f.tag = ((f.id << 3) | (f.label === 'map' ? 2 : f.wireType)) >>> 0;
      f.encodeValue = compileEncoder(f.kind, f.message);
      f.decodeValue = compileDecoder(f.kind, f.message, rawHook);
    }
    compileMessage(m);
  }
}
