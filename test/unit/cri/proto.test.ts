// The project's proto: found from any install layout, and wire-compatible with
// the upstream CRI definition for every message, field and method it declares.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { afterEach, describe, expect, it } from 'vitest';
import { PROTO_RELATIVE_PATH, findProtoFile, loadCriProto } from '../../../src/cri/proto.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const REFERENCE = process.env['CRI_REFERENCE_PROTO'] ?? '/work/shared/reference/cri-runtime-v1.proto';

const tmpDirs: string[] = [];
afterEach(() => {
  for (const d of tmpDirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('findProtoFile', () => {
  it('finds the repository proto from src/cri', () => {
    expect(findProtoFile(join(REPO, 'src', 'cri'))).toBe(join(REPO, PROTO_RELATIVE_PATH));
  });

  it('finds it from dist/bundle of an installed tree', () => {
    const root = mkdtempSync(join(tmpdir(), 'proto-find-'));
    tmpDirs.push(root);
    mkdirSync(join(root, 'proto', 'runtime', 'v1'), { recursive: true });
    writeFileSync(join(root, PROTO_RELATIVE_PATH), 'syntax = "proto3";');
    mkdirSync(join(root, 'dist', 'bundle'), { recursive: true });
    expect(findProtoFile(join(root, 'dist', 'bundle'))).toBe(join(root, PROTO_RELATIVE_PATH));
  });

  it('fails with EINTERNAL naming the file when no ancestor has it', () => {
    const root = mkdtempSync(join(tmpdir(), 'proto-none-'));
    tmpDirs.push(root);
    expect(() => findProtoFile(root)).toThrow(expect.objectContaining({ code: 'EINTERNAL', message: expect.stringContaining(PROTO_RELATIVE_PATH) }));
  });

  it('loads once and shares the result', async () => {
    const a = loadCriProto();
    const b = loadCriProto();
    expect(await a).toBe(await b);
    expect((await a).file).toBe(join(REPO, PROTO_RELATIVE_PATH));
  });
});

function parse(file: string): protobuf.Root {
  const root = new protobuf.Root();
  protobuf.parse(readFileSync(file, 'utf8'), root, { keepCase: true });
  return root;
}

function walk(ns: protobuf.NamespaceBase, out: protobuf.ReflectionObject[] = []): protobuf.ReflectionObject[] {
  for (const o of ns.nestedArray) {
    out.push(o);
    if (o instanceof protobuf.Namespace || o instanceof protobuf.Type || o instanceof protobuf.Service) walk(o as protobuf.NamespaceBase, out);
  }
  return out;
}

describe('wire compatibility with the upstream CRI definition', () => {
  it.runIf(existsSync(REFERENCE))('declares every message, field, enum value and method exactly as the reference does', () => {
    const ours = parse(join(REPO, PROTO_RELATIVE_PATH));
    const ref = parse(REFERENCE);
    const problems: string[] = [];
    let fields = 0;
    for (const o of walk(ours)) {
      if (!(o instanceof protobuf.Type || o instanceof protobuf.Enum || o instanceof protobuf.Service)) continue;
      const r = ref.lookup(o.fullName);
      if (r === null || r.constructor !== o.constructor) {
        problems.push(`${o.fullName}: not in the reference (or a different kind)`);
        continue;
      }
      if (o instanceof protobuf.Type) {
        const rt = r as protobuf.Type;
        for (const f of o.fieldsArray) {
          fields++;
          const rf = rt.fields[f.name];
          const mapKey = (x: protobuf.Field) => (x instanceof protobuf.MapField ? x.keyType : '');
          if (rf === undefined) problems.push(`${o.fullName}.${f.name}: no such field in the reference`);
          else if (rf.id !== f.id || rf.type !== f.type || rf.repeated !== f.repeated || mapKey(rf) !== mapKey(f)) {
            problems.push(`${o.fullName}.${f.name}: ours ${f.id} ${f.repeated ? 'repeated ' : ''}${mapKey(f)}${f.type}, reference ${rf.id} ${rf.repeated ? 'repeated ' : ''}${mapKey(rf)}${rf.type}`);
          }
        }
      } else if (o instanceof protobuf.Enum) {
        const re = r as protobuf.Enum;
        for (const [name, value] of Object.entries(o.values)) {
          if (re.values[name] !== value) problems.push(`${o.fullName}.${name}: ours ${value}, reference ${re.values[name]}`);
        }
      } else {
        const rs = r as protobuf.Service;
        for (const m of o.methodsArray) {
          const rm = rs.methods[m.name];
          if (rm === undefined || rm.requestType !== m.requestType || rm.responseType !== m.responseType || !!rm.requestStream !== !!m.requestStream || !!rm.responseStream !== !!m.responseStream) {
            problems.push(`${o.fullName}.${m.name}: signature differs from the reference`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
    expect(fields).toBeGreaterThan(150);
  });

  it('declares package runtime.v1 and both services', async () => {
    const p = await loadCriProto();
    expect(p.runtimeService.fullName).toBe('.runtime.v1.RuntimeService');
    expect(p.imageService.fullName).toBe('.runtime.v1.ImageService');
  });
});
