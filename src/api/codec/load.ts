// Loads proto/platform with protobufjs (dynamic import: the agent's --help
// and --version paths never pay for it) and compiles every converter, once
// per process. The directory is found by walking up from this module to the
// first ancestor holding proto/platform, which is the repository or installed
// package root from src/, dist/ and a bundle alike.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CodecError } from './errors.js';
import { type MessagePlan, type ProtoWriter, buildPlans } from './plan.js';

/** The API's .proto files, relative to the proto directory, in load order. */
export const API_PROTO_FILES: readonly string[] = [
  'platform/apimachinery/pkg/runtime/types.proto',
  'platform/apimachinery/pkg/api/resource/types.proto',
  'platform/apimachinery/pkg/util/intstr/types.proto',
  'platform/apimachinery/pkg/apis/meta/v1/types.proto',
  'platform/api/core/v1/types.proto',
  'platform/api/policy/v1/types.proto',
  'platform/api/coordination/v1/types.proto',
  'platform/api/certificates/v1/types.proto',
  'platform/api/certificates/v1alpha1/types.proto',
  'platform/api/authentication/v1/types.proto',
  'platform/api/authorization/v1/types.proto',
  'platform/api/rbac/v1/types.proto',
];

/** The `proto` directory holding platform/ in `startDir` or its closest ancestor. */
export function findApiProtoDir(startDir: string): string {
  let dir = startDir;
  for (;;) {
    if (existsSync(join(dir, 'proto', 'platform', 'apimachinery'))) return join(dir, 'proto');
    const parent = dirname(dir);
    if (parent === dir) throw new CodecError('ESCHEMA', `cannot find proto/platform in ${startDir} or any parent directory (incomplete installation?)`);
    dir = parent;
  }
}

export interface LoadedSchema {
  readonly protoDir: string;
  readonly plans: Map<string, MessagePlan>;
  readonly newWriter: () => ProtoWriter;
}

/** Parses the API protos and builds the (uncompiled) plan graph. */
export async function loadSchema(protoDir = findApiProtoDir(dirname(fileURLToPath(import.meta.url)))): Promise<LoadedSchema> {
  const mod = await import('protobufjs');
  // CommonJS module: its namespace object carries module.exports as `default` under Node's ESM loader and esbuild alike.
  const protobuf: typeof mod = (mod as unknown as { default?: typeof mod }).default ?? mod;
  const root = new protobuf.Root();
  for (const f of API_PROTO_FILES) {
    const file = join(protoDir, f);
    try {
      protobuf.parse(readFileSync(file, 'utf8'), root, { keepCase: true });
    } catch (e) {
      throw new CodecError('ESCHEMA', `cannot load ${file}: ${(e as Error).message}`, { cause: e });
    }
  }
  root.resolveAll();
  const plans = buildPlans(root, protobuf);
  return { protoDir, plans, newWriter: () => protobuf.Writer.create() as unknown as ProtoWriter };
}
