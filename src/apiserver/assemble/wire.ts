// The API codec (src/api/codec) as the verb handlers and the stores use it:
// the handlers' WireCodec (envelopes, watch frames, strict body decoding)
// and the registry's StorageCodec (objects are stored as protobuf envelopes,
// as kube-apiserver stores them in etcd; kinds without a protobuf form, such
// as RBAC's, as JSON — the first byte tells them apart).
import { apiErrors } from '../../api/errors.js';
import { encodeWatchFrame, hasEnvelopeMagic, isCodecError, type ApiCodec, type TypeMeta } from '../../api/codec/index.js';
import { MEDIA_PROTOBUF, MEDIA_YAML } from '../../api/media.js';
import { cannotHandle } from '../handlers/body.js';
import type { DecodedBody, GroupVersionKind, WireCodec } from '../handlers/ports.js';
import type { ApiObject, ObjectMeta, StorageCodec } from '../registry/types.js';

const tmOf = (gvk: GroupVersionKind): TypeMeta => ({ apiVersion: gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`, kind: gvk.kind });

/** A codec failure on a request body: 400 in upstream's words, naming what failed. */
function bodyError(gvk: GroupVersionKind, e: unknown): Error {
  if (!isCodecError(e)) return e instanceof Error ? e : new Error(String(e));
  return apiErrors.badRequest(cannotHandle(gvk, e.message));
}

export function wireCodec(codec: ApiCodec): WireCodec {
  return {
    hasProtobuf: (gvk) => codec.hasKind(tmOf(gvk)),
    encodeProtobuf: (obj, gvk) => codec.encode(obj as unknown as Record<string, unknown>, tmOf(gvk)),
    encodeStoredList(gvk, listMeta, values) {
      // Kinds stored as JSON (RBAC's) and a page holding one are encoded the slow way, by the caller.
      if (!codec.hasKind(tmOf(gvk)) || !values.every((v) => hasEnvelopeMagic(v.value))) return undefined;
      return codec.encodeListFromStored(tmOf(gvk), listMeta, values.map((v) => ({ envelope: v.value, resourceVersion: String(v.modRevision) })));
    },
    encodeWatchFrame: (type, obj, gvk) => encodeWatchFrame(type, codec.encode(obj as unknown as Record<string, unknown>, tmOf(gvk))),
    decodeBody(bytes, mediaType, gvk): DecodedBody {
      const tm = tmOf(gvk);
      try {
        if (mediaType === MEDIA_PROTOBUF) {
          // The envelope's kind and apiVersion land in the object: the handler checks them against the path.
          const { object } = codec.decode(bytes);
          return { object: object as ApiObject, unknownFields: [], duplicateFields: [], typeErrors: [] };
        }
        if (!codec.hasKind(tm)) return plainJson(bytes, gvk);
        const r = mediaType === MEDIA_YAML ? codec.decodeYamlStrict(bytes, tm) : codec.decodeJsonStrict(bytes, tm);
        return { object: r.object as ApiObject, unknownFields: r.unknownFields, duplicateFields: r.duplicateFields, typeErrors: r.typeErrors };
      } catch (e) {
        throw bodyError(gvk, e);
      }
    },
  };
}

/** Kinds without a schema here (RBAC): parsed as JSON, no unknown-field report. */
function plainJson(bytes: Buffer, gvk: GroupVersionKind): DecodedBody {
  let v: unknown;
  try {
    v = JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    throw apiErrors.badRequest(cannotHandle(gvk, (e as Error).message));
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw apiErrors.badRequest(cannotHandle(gvk, 'not a JSON object'));
  return { object: v as ApiObject, unknownFields: [], duplicateFields: [], typeErrors: [] };
}

/**
 * A stored value in memory of its own. Small Buffers are slices of Node's
 * shared 8 KiB pool: a value the memory store keeps for minutes would pin a
 * whole slab, mostly the request's garbage (measured: 5.4 KiB off-heap per
 * stored pod instead of its 0.8 KiB).
 */
function ownMemory(b: Buffer): Buffer {
  if (b.byteOffset === 0 && b.buffer.byteLength === b.length) return b;
  const own = Buffer.allocUnsafeSlow(b.length);
  b.copy(own);
  return own;
}

export function storageCodec(codec: ApiCodec): StorageCodec {
  return {
    encode(obj) {
      const o = obj as unknown as Record<string, unknown>;
      const tm = { apiVersion: String(o['apiVersion'] ?? ''), kind: String(o['kind'] ?? '') };
      return ownMemory(codec.hasKind(tm) ? codec.encode(o, tm) : Buffer.from(JSON.stringify(obj)));
    },
    decodeMetadata(bytes) {
      return hasEnvelopeMagic(bytes) ? ((codec.decodeMetadata(bytes) ?? {}) as ObjectMeta) : undefined;
    },
    decode(bytes) {
      if (hasEnvelopeMagic(bytes)) return codec.decode(bytes).object as ApiObject;
      return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as ApiObject;
    },
  };
}
