// The codec is built once per process from proto/platform, found from any install layout.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiCodec, loadApiCodec } from '../../../../src/api/codec/index.js';
import { findApiProtoDir } from '../../../../src/api/codec/load.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('loading', () => {
  it('shares one codec between callers', async () => {
    const [a, b] = await Promise.all([loadApiCodec(), loadApiCodec()]);
    expect(a).toBe(b);
  });

  it('finds proto/ from dist/ of an installed tree, and names the directory when none has it', () => {
    const root = mkdtempSync(join(tmpdir(), 'api-proto-'));
    dirs.push(root);
    mkdirSync(join(root, 'proto', 'platform', 'apimachinery'), { recursive: true });
    mkdirSync(join(root, 'dist', 'api', 'codec'), { recursive: true });
    expect(findApiProtoDir(join(root, 'dist', 'api', 'codec'))).toBe(join(root, 'proto'));
    const empty = mkdtempSync(join(tmpdir(), 'api-proto-none-'));
    dirs.push(empty);
    expect(() => findApiProtoDir(empty)).toThrow(expect.objectContaining({ code: 'ESCHEMA', message: expect.stringContaining(empty) }));
  });

  it('fails to build from a directory without the API protos', async () => {
    const root = mkdtempSync(join(tmpdir(), 'api-proto-bad-'));
    dirs.push(root);
    await expect(createApiCodec(root)).rejects.toThrow(expect.objectContaining({ code: 'ESCHEMA', message: expect.stringContaining(join(root, 'platform/apimachinery/pkg/runtime/types.proto')) }));
  });
});
