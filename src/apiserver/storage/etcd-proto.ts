// Loads the project's etcd v3 subset (proto/etcd/**) with protobufjs, as
// src/cri/proto.ts loads the CRI: once per process, on first use (creating an
// etcd store), through a dynamic import so the in-memory server never loads
// protobufjs for it. The files are found by walking up from this module to
// the first directory holding proto/etcd (the repository or installed
// package root, from src/, dist/ or a bundle alike).

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IConversionOptions, Root, Type } from 'protobufjs';
import { StorageError } from './interface.js';

const PROTO_DIR = join('proto', 'etcd');
/** Parsed in this order: rpc.proto refers to mvccpb's messages. */
const FILES = [join('mvccpb', 'kv.proto'), join('etcdserverpb', 'rpc.proto')];

/**
 * Decoded messages become plain objects: int64 as number (etcd revisions and
 * counts stay far below 2^53), bytes as Buffer, enums as names, defaults
 * filled in, absent sub-messages left out.
 */
const DECODE_OPTIONS: IConversionOptions = { longs: Number, enums: String, defaults: true, arrays: true };

export interface EtcdCodec {
  /** gRPC method path, e.g. `/etcdserverpb.KV/Range`. */
  readonly path: string;
  serialize(value: object): Buffer;
  deserialize(bytes: Buffer): unknown;
}

export interface EtcdProto {
  readonly root: Root;
  /** Codec of `service/method` (e.g. 'KV', 'Range'): request encoder, response decoder. */
  method(service: 'KV' | 'Watch', rpc: string): EtcdCodec;
}

function findProtoDir(startDir: string): string {
  let dir = startDir;
  for (;;) {
    const candidate = join(dir, PROTO_DIR);
    if (existsSync(join(candidate, FILES[1] ?? ''))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new StorageError('Unavailable', PROTO_DIR, { message: `cannot find ${PROTO_DIR} in ${startDir} or any parent directory (incomplete installation?)` });
    dir = parent;
  }
}

const toBuffer = (bytes: Uint8Array): Buffer => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));

let loading: Promise<EtcdProto> | undefined;

/** Parses the definitions on first call; later calls share the result. Safe to call concurrently. */
export function loadEtcdProto(): Promise<EtcdProto> {
  loading ??= parse().catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
}

async function parse(): Promise<EtcdProto> {
  const mod = await import('protobufjs');
  // CommonJS module: its namespace carries module.exports as `default` under Node's ESM loader and esbuild alike.
  const protobuf: typeof mod = (mod as unknown as { default?: typeof mod }).default ?? mod;
  const dir = findProtoDir(dirname(fileURLToPath(import.meta.url)));
  const root = new protobuf.Root();
  // keepCase false: fields get camelCase names (create_revision -> createRevision).
  for (const f of FILES) protobuf.parse(readFileSync(join(dir, f), 'utf8'), root, { keepCase: false });
  root.resolveAll();
  const codecs = new Map<string, EtcdCodec>();
  const codec = (reqType: Type, resType: Type, path: string): EtcdCodec => ({
    path,
    serialize: (value) => toBuffer(reqType.encode(reqType.fromObject(value as Record<string, unknown>)).finish()),
    deserialize: (bytes) => resType.toObject(resType.decode(bytes), DECODE_OPTIONS),
  });
  return {
    root,
    method(service, rpc) {
      const path = `/etcdserverpb.${service}/${rpc}`;
      let c = codecs.get(path);
      if (c === undefined) {
        const m = root.lookupService(`etcdserverpb.${service}`).methods[rpc];
        if (m === undefined) throw new StorageError('Unavailable', path, { message: `proto/etcd defines no method ${path}` });
        c = codec(root.lookupType(`etcdserverpb.${m.requestType}`), root.lookupType(`etcdserverpb.${m.responseType}`), path);
        codecs.set(path, c);
      }
      return c;
    },
  };
}
