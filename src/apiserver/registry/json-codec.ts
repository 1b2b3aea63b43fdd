// The JSON StorageCodec: objects stored as their JSON text. The default for
// tests and for a server started without the protobuf codec; the integrator
// may plug the protobuf envelope in instead. Pure.
import type { ApiObject, StorageCodec } from './types.js';

export const jsonStorageCodec: StorageCodec = {
  encode: (obj: ApiObject): Uint8Array => Buffer.from(JSON.stringify(obj)),
  decode: (bytes: Uint8Array): ApiObject => JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as ApiObject,
};
