// Loads the project's CRI definition (proto/runtime/v1/api.proto) with
// protobufjs. Loaded once per process, on first use (creating a CRI client
// or the test server), never on the --version / --help paths: protobufjs is
// reached only through a dynamic import.
//
// The file is found by walking up from this module's location to the first
// directory holding proto/runtime/v1/api.proto, which is the repository (or
// installed package) root whether this code runs from src/ (vitest), dist/
// (tsc output) or dist/bundle/agent.cjs (the bundle, where import.meta.url is
// the bundle's own URL).

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IConversionOptions, Reader, Root, Service, Type } from 'protobufjs';
import { AgentError } from '../errors.js';

export const PROTO_RELATIVE_PATH = join('proto', 'runtime', 'v1', 'api.proto');
export const CRI_PACKAGE = 'runtime.v1';

/**
 * How every decoded message becomes a plain object (the shapes of wire.ts):
 * int64/uint64 as bigint, enums as names, every field present, absent
 * sub-messages as null.
 */
export const WIRE_DECODE_OPTIONS: IConversionOptions = { longs: BigInt, enums: String, defaults: true, arrays: true, objects: true };

/** Encodes a plain wire object as message `type`. */
export function encodeMessage(type: Type, value: object): Buffer {
  const bytes = type.encode(type.fromObject(value as Record<string, unknown>)).finish();
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Decodes message `type` into a plain wire object. */
export function decodeMessage(type: Type, bytes: Uint8Array): object {
  return type.toObject(type.decode(bytes), WIRE_DECODE_OPTIONS);
}

/** The parsed definition. `type(name)` takes a message name of package runtime.v1. */
export interface CriProto {
  readonly root: Root;
  readonly file: string;
  readonly runtimeService: Service;
  readonly imageService: Service;
  /** protobufjs' wire reader, for decoding a message piecewise (list-memo.ts). */
  readonly reader: { create(buf: Uint8Array): Reader };
  type(name: string): Type;
}

/** Returns the api.proto found in `startDir` or its closest ancestor; throws EINTERNAL when none has it. */
export function findProtoFile(startDir: string): string {
  let dir = startDir;
  for (;;) {
    const candidate = join(dir, PROTO_RELATIVE_PATH);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) {
      throw new AgentError('EINTERNAL', `cannot find ${PROTO_RELATIVE_PATH} in ${startDir} or any parent directory (incomplete installation?)`);
    }
    dir = parent;
  }
}

let loading: Promise<CriProto> | undefined;

/** Parses the definition on first call; later calls share the result. Safe to call concurrently. */
export function loadCriProto(): Promise<CriProto> {
  loading ??= parseCriProto().catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
}

async function parseCriProto(): Promise<CriProto> {
  const mod = await import('protobufjs');
  // CommonJS module: its namespace object carries module.exports as `default` under Node's ESM loader and esbuild alike.
  const protobuf: typeof mod = (mod as unknown as { default?: typeof mod }).default ?? mod;
  const file = findProtoFile(dirname(fileURLToPath(import.meta.url)));
  const root = new protobuf.Root();
  // keepCase false: fields get their camelCase JSON names (pod_sandbox_id -> podSandboxId).
  protobuf.parse(readFileSync(file, 'utf8'), root, { keepCase: false });
  root.resolveAll();
  const pkg = root.lookup(CRI_PACKAGE);
  if (pkg === null) throw new AgentError('EINTERNAL', `${file} does not define package ${CRI_PACKAGE}`);
  const types = new Map<string, Type>();
  const type = (name: string): Type => {
    let t = types.get(name);
    if (t === undefined) {
      t = root.lookupType(`${CRI_PACKAGE}.${name}`);
      types.set(name, t);
    }
    return t;
  };
  return {
    root,
    file,
    runtimeService: root.lookupService(`${CRI_PACKAGE}.RuntimeService`),
    imageService: root.lookupService(`${CRI_PACKAGE}.ImageService`),
    reader: protobuf.Reader,
    type,
  };
}
