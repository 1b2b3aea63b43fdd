// The decoded shapes of the etcd messages the store reads (proto/etcd, as
// loadEtcdProto's codecs produce them), and the pure rules around them: key
// ranges, endpoint parsing, gRPC error classification, KeyValue ->
// StoredValue. No I/O here; tested with tables.

import { StorageError, type StoredValue } from './interface.js';

export interface WireHeader {
  revision: number;
}

export interface WireKeyValue {
  key: Buffer;
  createRevision: number;
  modRevision: number;
  version: number;
  value: Buffer;
}

export interface WireRangeResponse {
  header?: WireHeader | null;
  kvs: WireKeyValue[];
  more: boolean;
  count: number;
}

export interface WirePutResponse {
  header?: WireHeader | null;
  prevKv?: WireKeyValue | null;
}

export interface WireDeleteRangeResponse {
  header?: WireHeader | null;
  deleted: number;
  prevKvs: WireKeyValue[];
}

export interface WireResponseOp {
  responseRange?: WireRangeResponse | null;
  responsePut?: WirePutResponse | null;
  responseDeleteRange?: WireDeleteRangeResponse | null;
}

export interface WireTxnResponse {
  header?: WireHeader | null;
  succeeded: boolean;
  responses: WireResponseOp[];
}

export interface WireEvent {
  type: 'PUT' | 'DELETE';
  kv?: WireKeyValue | null;
  prevKv?: WireKeyValue | null;
}

export interface WireWatchResponse {
  header?: WireHeader | null;
  watchId: number;
  created: boolean;
  canceled: boolean;
  compactRevision: number;
  cancelReason: string;
  events: WireEvent[];
}

/** The end of the range of keys starting with `prefix` (etcd's clientv3.GetPrefixRangeEnd): "\0" (every key) when none exists. */
export function prefixRangeEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if ((end[i] ?? 0xff) < 0xff) {
      end[i] = (end[i] ?? 0) + 1;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]);
}

/**
 * `--etcd-servers` entries -> gRPC targets (host:port). Accepts
 * `http://host:port` and `host:port`; refuses https (no client TLS options
 * yet) and anything else, naming the entry. Throws on an empty list.
 */
export function parseEtcdEndpoints(endpoints: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of endpoints) {
    const e = raw.trim();
    if (e === '') continue;
    const m = /^(?:http:\/\/)?(\[[0-9a-fA-F:.]+\]|[^/:\s]+):(\d{1,5})\/?$/.exec(e);
    const port = m === null ? NaN : Number(m[2]);
    if (m === null || !(port > 0 && port < 65536)) {
      throw new StorageError('Unavailable', e, { message: `etcd endpoint ${JSON.stringify(e)}: expected http://host:port or host:port (https is not supported)` });
    }
    out.push(`${m[1] ?? ''}:${port}`);
  }
  if (out.length === 0) throw new StorageError('Unavailable', '', { message: 'no etcd endpoint given' });
  return out;
}

/** gRPC status codes the store tells apart (grpc-js' status enum values). */
export const GRPC_UNAVAILABLE = 14;
const GRPC_OUT_OF_RANGE = 11;

export type EtcdErrorKind = 'compacted' | 'future' | 'unavailable' | 'other';

/** What a failed etcd call means for the store, from its gRPC status (etcd's rpctypes error strings). */
export function classifyEtcdError(code: number, details: string): EtcdErrorKind {
  if (details.includes('required revision has been compacted')) return 'compacted';
  if (details.includes('required revision is a future revision')) return 'future';
  if (code === GRPC_UNAVAILABLE) return 'unavailable';
  if (code === GRPC_OUT_OF_RANGE && details.includes('compacted')) return 'compacted';
  return 'other';
}

/** A KeyValue read under `prefix` as the store's value (key without the prefix). */
export function toStored(kv: WireKeyValue, prefixLength: number): StoredValue {
  return {
    key: kv.key.subarray(prefixLength).toString('utf8'),
    value: new Uint8Array(kv.value.buffer, kv.value.byteOffset, kv.value.byteLength),
    createRevision: kv.createRevision,
    modRevision: kv.modRevision,
  };
}

/** The revision a response was applied at; a response without a header is a protocol error. */
export function headerRevision(r: { header?: WireHeader | null }, what: string): number {
  if (r.header == null) throw new StorageError('Unavailable', what, { message: `etcd answered ${what} without a header` });
  return r.header.revision;
}
