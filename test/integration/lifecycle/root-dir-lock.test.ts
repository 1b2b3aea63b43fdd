// One agent per --root-dir: the lock inside the root directory, with real
// flock(1) helpers (two locks taken in this one process exclude each other as
// two agents would: each is held by its own helper process).
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LockError } from '../../../src/errors.js';
import type { HeldLock } from '../../../src/lifecycle/lockfile.js';
import { lockRootDir, ROOT_DIR_LOCK_FILE } from '../../../src/lifecycle/root-dir-lock.js';
import { tempDir } from '../../helpers/agent-process.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function work(): string {
  const t = tempDir('agent-root-lock-');
  cleanups.push(t.cleanup);
  return t.dir;
}

async function take(dir: string, waitMs?: number): Promise<HeldLock> {
  const lock = await lockRootDir(dir, { signal: new AbortController().signal, ...(waitMs === undefined ? {} : { waitMs }) });
  cleanups.push(() => lock.release());
  return lock;
}

describe('lockRootDir', () => {
  it('creates a missing root directory (0750, as the kubelet does), takes the lock and records the pid', async () => {
    const root = join(work(), 'var', 'lib', 'agent');
    const lock = await take(root);
    expect(statSync(root).mode & 0o777).toBe(0o750);
    expect(lock.path).toBe(join(root, ROOT_DIR_LOCK_FILE));
    expect(readFileSync(lock.path, 'utf8')).toBe(`${process.pid}\n`);
  });

  it('refuses a second holder with an error naming the root directory and the holder pid', async () => {
    const root = work();
    await take(root);
    const second = lockRootDir(root, { signal: new AbortController().signal, waitMs: 100 });
    await expect(second).rejects.toThrow(LockError);
    await expect(second).rejects.toThrow(`another agent (pid ${process.pid}) is already using --root-dir ${root}; each agent needs its own root directory`);
  });

  it('a holder that goes within the wait lets the next one in (an agent restarted right after its predecessor died)', async () => {
    const root = work();
    const first = await lockRootDir(root, { signal: new AbortController().signal });
    const second = take(root, 5_000);
    await first.release();
    await expect(second).resolves.toMatchObject({ path: join(root, ROOT_DIR_LOCK_FILE) });
  });

  it('names --root-dir when the directory cannot be created', async () => {
    const dir = work();
    writeFileSync(join(dir, 'file'), '');
    const err = await lockRootDir(join(dir, 'file', 'root'), { signal: new AbortController().signal }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LockError);
    expect((err as LockError).message).toMatch(/^cannot create --root-dir .*file\/root: /);
  });

  it('another root directory is another lock', async () => {
    const dir = work();
    mkdirSync(join(dir, 'a'));
    await take(join(dir, 'a'));
    await expect(take(join(dir, 'b'), 100)).resolves.toBeDefined();
  });
});
