// The API codec: JSON-form objects <-> protobuf (the §4.9 envelope, raw
// messages, lists from stored items, watch frames) and strict decoding of
// request bodies (§4.10). Shared by the server and the agent's client; see
// README.md. loadApiCodec() is the one way to get it (async, once per
// process); every method of ApiCodec is synchronous and never blocks on I/O.

import type { FieldError } from '../errors.js';
import { compilePlans } from './convert.js';
import { decodeOmitting } from './omit.js';
import { decodeEnvelope, encodeEnvelope, type TypeMeta } from './envelope.js';
import { CodecError } from './errors.js';
import { loadSchema } from './load.js';
import type { MessagePlan } from './plan.js';
import { type KindEntry, SERVED_KINDS, kindKey } from './registry.js';
import { assembleStoredList, envelopeHead, rawAfterHead, type StoredItem, type VersionSlot } from './stored-list.js';
import { parseJsonStrict } from './strict-json.js';
import { walkObject } from './validate.js';
import { decodeWatchEvent } from './watch.js';
import { WireReader } from './wire.js';
import { parseYamlStrict } from './yaml-strict.js';

export { CodecError, isCodecError, type CodecErrorCode } from './errors.js';
export { ENVELOPE_MAGIC, decodeEnvelope, encodeEnvelope, hasEnvelopeMagic, type Envelope, type TypeMeta } from './envelope.js';
export { JsonStreamSplitter } from './json-stream.js';
export { internJsonStrings } from './intern.js';
export { SERVED_KINDS, type KindEntry } from './registry.js';
export { fieldValidationMessages } from './validate.js';
export type { StoredItem } from './stored-list.js';
export { MAX_JSON_DEPTH, parseJsonStrict, type StrictJson } from './strict-json.js';
export { WatchFrameDecoder, encodeWatchFrame, type WatchEventType, type WatchFrame } from './watch.js';
export { parseYamlStrict } from './yaml-strict.js';

/** A JSON-form API object (what JSON.parse of a response body gives). */
export type ApiObject = Record<string, unknown>;

export interface StrictDecodeResult {
  /** The body with unknown fields, wrongly typed values and nulls removed. */
  object: ApiObject;
  /** Paths of fields the kind's schema does not have, e.g. `spec.containers[0].bar`. */
  unknownFields: string[];
  /** Paths of keys given more than once in one object (the last value is kept). */
  duplicateFields: string[];
  /** Values of the wrong JSON type, by path, with the expected type in `detail`. */
  typeErrors: FieldError[];
}

/** What a reader may ask a decode to leave out. */
export interface DecodeOptions {
  /**
   * Skip metadata.managedFields (at any depth) on the wire instead of
   * decoding it: for readers that never look at it (the agent's informers),
   * a third of a small pod's decode and heap.
   */
  readonly omitManagedFields?: boolean;
}

export interface ApiCodec {
  readonly kinds: readonly KindEntry[];
  hasKind(tm: TypeMeta): boolean;
  /** Envelope bytes of `obj`; `tm` defaults to the object's own apiVersion/kind. Throws CodecError EKIND/ETYPE naming the field. */
  encode(obj: ApiObject, tm?: TypeMeta): Buffer;
  /** The object of an envelope, with kind and apiVersion set from it. Throws CodecError EENVELOPE/EKIND/EWIRE. */
  decode(buf: Uint8Array, opts?: DecodeOptions): { typeMeta: TypeMeta; object: ApiObject };
  /** An envelope's `metadata` alone (the rest is skipped, not decoded); undefined when the object has none. Throws as decode. */
  decodeMetadata(buf: Uint8Array): ApiObject | undefined;
  /** The message alone (no envelope, no TypeMeta): what the envelope's `raw` holds. */
  encodeRaw(obj: ApiObject, tm: TypeMeta): Buffer;
  /** Decodes a message of kind `tm`; the result has no kind/apiVersion (as list items in JSON). */
  decodeRaw(raw: Uint8Array, tm: TypeMeta): ApiObject;
  /**
   * The envelope of a List (`<Kind>List`) from stored envelopes of `<Kind>`
   * that carry no resourceVersion, each item's set to its own: no item is
   * decoded. Throws CodecError EKIND when an envelope holds another kind or
   * the kind has no metadata.resourceVersion, EENVELOPE/EWIRE for bad bytes.
   */
  encodeListFromStored(listTm: TypeMeta, listMeta: ApiObject, items: readonly StoredItem[]): Buffer;
  /** A watch frame's payload decoded down to its object. */
  decodeWatchFrame(payload: Buffer): { type: string; object: ApiObject };
  /** Parses and checks a JSON request body for kind `tm`. Throws CodecError ESYNTAX (byte offset) / EDEPTH (path) / EKIND. */
  decodeJsonStrict(body: Uint8Array | string, tm: TypeMeta): StrictDecodeResult;
  /** The same for a YAML body. */
  decodeYamlStrict(body: Uint8Array | string, tm: TypeMeta): StrictDecodeResult;
}

function noKind(tm: TypeMeta): CodecError {
  return new CodecError('EKIND', `no kind ${JSON.stringify(tm.kind)} is registered for version ${JSON.stringify(tm.apiVersion)}`);
}

/** Builds the codec; `protoDir` overrides where proto/platform is looked for (tests). */
export async function createApiCodec(protoDir?: string): Promise<ApiCodec> {
  const schema = await loadSchema(protoDir);
  const byKind = new Map<string, MessagePlan>();
  const typeMetaKinds = new Set<string>();
  for (const k of SERVED_KINDS) {
    const plan = schema.plans.get(k.message);
    if (plan === undefined) throw new CodecError('ESCHEMA', `${k.apiVersion} ${k.kind}: message ${k.message} is not in proto/platform`);
    byKind.set(kindKey(k), plan);
    typeMetaKinds.add(k.message);
  }
  const listMeta = schema.plans.get('platform.io.apimachinery.pkg.apis.meta.v1.ListMeta') as MessagePlan;
  const planOf = (tm: TypeMeta): MessagePlan => {
    const p = byKind.get(kindKey(tm));
    if (p === undefined) throw noKind(tm);
    return p;
  };
  const encodeRaw = (obj: ApiObject, tm: TypeMeta): Buffer => {
    const w = schema.newWriter();
    planOf(tm).encode(obj, w);
    return w.finish() as Buffer;
  };
  const decodeRaw = (raw: Uint8Array, tm: TypeMeta): ApiObject => {
    const r = new WireReader(raw);
    return planOf(tm).decode(r, r.end);
  };
  const decode = (buf: Uint8Array, opts?: DecodeOptions): { typeMeta: TypeMeta; object: ApiObject } => (opts?.omitManagedFields === true ? decodeOmitting(() => decodeAll(buf)) : decodeAll(buf));
  const decodeAll = (buf: Uint8Array): { typeMeta: TypeMeta; object: ApiObject } => {
    const env = decodeEnvelope(buf);
    const plan = planOf(env.typeMeta);
    // kind and apiVersion first, as JSON has them; decoded into the plan's own object (no copy: see shape.ts).
    const object = plan.create();
    object['kind'] = env.typeMeta.kind;
    object['apiVersion'] = env.typeMeta.apiVersion;
    const r = new WireReader(env.raw);
    plan.decode(r, r.end, object);
    return { typeMeta: env.typeMeta, object };
  };
  compilePlans(schema.plans, (raw) => decodeAll(raw).object);
  const decodeMetadata = (buf: Uint8Array): ApiObject | undefined => {
    const env = decodeEnvelope(buf);
    const field = planOf(env.typeMeta).byName.get('metadata');
    if (field?.message === undefined) return undefined;
    const r = new WireReader(env.raw);
    let meta: ApiObject | undefined;
    while (r.pos < r.end) {
      const tag = r.uint32();
      if (tag !== field.tag) {
        r.skip(tag & 7);
        continue;
      }
      const n = r.len();
      const end = r.pos + n;
      // Repeated occurrences of a message field merge, as protobuf says.
      meta = field.message.decode(r, end, meta);
      r.pos = end;
    }
    return meta;
  };
  const slots = new Map<string, VersionSlot>();
  const slotOf = (tm: TypeMeta): VersionSlot => {
    const k = kindKey(tm);
    let slot = slots.get(k);
    if (slot === undefined) {
      const meta = planOf(tm).byName.get('metadata');
      const rv = meta?.message?.byName.get('resourceVersion');
      if (meta === undefined || rv === undefined) throw new CodecError('EKIND', `kind ${JSON.stringify(tm.kind)} has no metadata.resourceVersion`);
      slot = { metadataId: meta.id, resourceVersionId: rv.id };
      slots.set(k, slot);
    }
    return slot;
  };
  const heads = new Map<string, Buffer>();
  const headOf = (tm: TypeMeta): Buffer => {
    let head = heads.get(kindKey(tm));
    if (head === undefined) {
      head = envelopeHead(tm);
      heads.set(kindKey(tm), head);
    }
    return head;
  };
  const encodeListMeta = (meta: ApiObject): Uint8Array => {
    const w = schema.newWriter();
    listMeta.encode(meta, w);
    return w.finish();
  };
  const strict = (parsed: { value: unknown; duplicates: string[] }, tm: TypeMeta): StrictDecodeResult => {
    const walked = walkObject(planOf(tm), parsed.value, typeMetaKinds);
    return { object: walked.object, unknownFields: walked.unknownFields, duplicateFields: parsed.duplicates, typeErrors: walked.typeErrors };
  };
  return {
    kinds: SERVED_KINDS,
    hasKind: (tm) => byKind.has(kindKey(tm)),
    encode: (obj, tm) => {
      const t = tm ?? { apiVersion: String(obj['apiVersion'] ?? ''), kind: String(obj['kind'] ?? '') };
      return encodeEnvelope(t, encodeRaw(obj, t));
    },
    decode,
    decodeMetadata,
    encodeRaw,
    decodeRaw,
    encodeListFromStored: (listTm, meta, items) => {
      planOf(listTm);
      const itemTm = { apiVersion: listTm.apiVersion, kind: listTm.kind.replace(/List$/, '') };
      const slot = slotOf(itemTm);
      const head = headOf(itemTm);
      const unwrap = (envelope: Uint8Array): Buffer => {
        const fast = rawAfterHead(head, envelope);
        if (fast !== undefined) return fast;
        const env = decodeEnvelope(envelope);
        if (env.typeMeta.kind !== itemTm.kind || env.typeMeta.apiVersion !== itemTm.apiVersion) throw new CodecError('EKIND', `a ${listTm.kind} cannot hold a ${env.typeMeta.apiVersion} ${env.typeMeta.kind}`);
        return env.raw;
      };
      return assembleStoredList(listTm, encodeListMeta(meta), items, { slot, unwrap });
    },
    decodeWatchFrame: (payload) => {
      const ev = decodeWatchEvent(payload);
      return { type: ev.type, object: decode(ev.object).object };
    },
    decodeJsonStrict: (body, tm) => {
      planOf(tm);
      return strict(parseJsonStrict(body), tm);
    },
    decodeYamlStrict: (body, tm) => {
      planOf(tm);
      return strict(parseYamlStrict(body), tm);
    },
  };
}

let loading: Promise<ApiCodec> | undefined;

/** The process-wide codec, built on first call; concurrent callers share it; a failed load is retried by the next call. */
export function loadApiCodec(): Promise<ApiCodec> {
  loading ??= createApiCodec().catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
}
