// Smoke test of the end-to-end infrastructure itself (packaging/local-runtime
// and test/e2e/helpers/local-runtime.ts): a private containerd with the local
// images, a task run through it, image pulls from loopback registries (plain
// and basic auth), CRI served, a clean stop, a second start, deterministic
// image builds. Skipped only where it cannot run (not root / packages
// missing) outside CI; under CI it must run.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CRI_NAMESPACE,
  IMAGES,
  LOCAL_RUNTIME_DIR,
  buildVariantImage,
  imageArchive,
  localRuntimeUnavailable,
  startLocalRuntime,
  startRegistry,
  type LocalRegistry,
  type LocalRuntime,
} from './helpers/local-runtime.js';

const unavailable = localRuntimeUnavailable();
const skip = unavailable !== undefined && !process.env['CI'];
if (skip) console.warn(`local runtime smoke test skipped: ${unavailable}`);

const SLOW = 60_000;

function sh(file: string, args: readonly string[], timeoutMs = 30_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res) => {
    execFile(file, [...args], { timeout: timeoutMs, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : -1) : 0;
      res({ code, stdout, stderr });
    });
  });
}

/** Live (non-zombie) processes whose command line mentions `needle`. */
function processesMentioning(needle: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      if (readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] === 'Z') continue;
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmd.includes(needle) && !cmd.includes('vitest')) found.push(`${pid} ${cmd}`);
    } catch {
      // gone
    }
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] !== 'Z';
  } catch {
    return false;
  }
}

async function until(what: string, ms: number, fn: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await fn()) return;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(skip)('local runtime (private containerd + local images + registries)', () => {
  let rt: LocalRuntime;
  let plain: LocalRegistry | undefined;
  let authed: LocalRegistry | undefined;
  const ns = ['-n', CRI_NAMESPACE];

  beforeAll(async () => {
    const t0 = performance.now();
    rt = await startLocalRuntime();
    console.log(`local runtime up in ${Math.round(performance.now() - t0)} ms at ${rt.endpoint}`);
  }, SLOW);

  afterAll(async () => {
    await Promise.allSettled([plain?.stop(), authed?.stop()]);
    await rt?.stop();
  }, SLOW);

  it('answers ctr version and serves CRI runtime.v1', async () => {
    const v = await rt.ctr(['version']);
    expect(v).toMatch(/Server:\s*\n\s*Version:\s*1\.6\./);
    const plugins = await rt.ctr(['plugins', 'ls']);
    expect(plugins).toMatch(/io\.containerd\.grpc\.v1\s+cri\s+linux\/\w+\s+ok/);
    const cri = await sh(process.execPath, [join(LOCAL_RUNTIME_DIR, 'cri.mjs'), rt.socket, 'version']);
    expect(cri.code, cri.stderr).toBe(0);
    expect(cri.stdout.trim()).toMatch(/^containerd \S+ v1$/);
  });

  it('has the local images in the k8s.io namespace', async () => {
    const refs = (await rt.ctr([...ns, 'images', 'ls', '-q'])).split('\n');
    expect(refs).toEqual(expect.arrayContaining([IMAGES.busybox, IMAGES.busyboxV2, IMAGES.pause]));
    const listing = await rt.ctr([...ns, 'images', 'ls']);
    const busybox = await imageArchive('busybox');
    expect(listing).toContain(busybox.manifestDigest);
  });

  it('runs a busybox task and returns its output', async () => {
    const out = await rt.ctr([
      ...ns, 'run', '--rm', '--net-host', IMAGES.busybox, 'smoke-echo',
      'sh', '-c', 'echo hi; id -un; test -d /tmp && echo tmp-ok; ls /usr/sbin/httpd /usr/bin/wget /bin/sleep >/dev/null && echo applets-ok',
    ]);
    expect(out.split(/\r?\n/).filter(Boolean)).toEqual(['hi', 'root', 'tmp-ok', 'applets-ok']);
  });

  it('runs the pause image, which exits 0 on SIGTERM', async () => {
    const id = 'smoke-pause';
    const runP = sh('ctr', ['-a', rt.socket, ...ns, 'run', '--rm', '--net-host', IMAGES.pause, id], 30_000);
    await until('pause task running', 10_000, async () => /\bRUNNING\b/.test(await rt.ctr([...ns, 'tasks', 'ls']).catch(() => '')) );
    await rt.ctr([...ns, 'tasks', 'kill', '-s', 'SIGTERM', id]);
    const r = await runP;
    expect(r.code, r.stderr).toBe(0);
  });

  it('pulls from a plain-http loopback registry', async () => {
    plain = await startRegistry();
    const digest = await plain.push('busybox-v2', 'smoke/busybox:v2');
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const ref = plain.ref('smoke/busybox:v2');
    await rt.ctr([...ns, 'images', 'pull', '--plain-http', ref], 30_000);
    const listing = await rt.ctr([...ns, 'images', 'ls']);
    const line = listing.split('\n').find((l) => l.startsWith(`${ref} `));
    expect(line).toContain(digest);
  });

  it('pulls from a basic-auth registry only with credentials', async () => {
    authed = await startRegistry({ auth: { username: 'smoke', password: 'p4ss w0rd!' } });
    await authed.push('busybox', 'private/busybox:1');
    const ref = authed.ref('private/busybox:1');
    const anonymous = await sh('ctr', ['-a', rt.socket, ...ns, 'images', 'pull', '--plain-http', ref]);
    expect(anonymous.code).not.toBe(0);
    expect(anonymous.stderr).toMatch(/401|unauthorized/i);
    await rt.ctr([...ns, 'images', 'pull', '--plain-http', '--user', 'smoke:p4ss w0rd!', ref], 30_000);
    expect((await rt.ctr([...ns, 'images', 'ls', '-q'])).split('\n')).toContain(ref);
  });

  it('survives a containerd crash: the next start adopts running tasks', async () => {
    await rt.ctr([...ns, 'run', '-d', '--net-host', IMAGES.busybox, 'smoke-survivor', 'sleep', '600']);
    const pidBefore = (await rt.ctr([...ns, 'tasks', 'ls'])).match(/smoke-survivor\s+(\d+)\s+RUNNING/)?.[1];
    expect(pidBefore).toBeDefined();
    await rt.kill();
    await rt.start();
    const after = await rt.ctr([...ns, 'tasks', 'ls']);
    expect(after).toMatch(new RegExp(`smoke-survivor\\s+${pidBefore}\\s+RUNNING`));
  }, SLOW);

  it('stops cleanly (no containerd, shim or container left) and starts again on the same directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-rt-'));
    try {
      const first = await startLocalRuntime({ dir });
      await first.ctr([...ns, 'run', '-d', '--net-host', IMAGES.busybox, 'smoke-bg', 'sleep', '600']);
      const taskPid = Number((await first.ctr([...ns, 'tasks', 'ls'])).match(/smoke-bg\s+(\d+)\s+RUNNING/)?.[1]);
      expect(taskPid).toBeGreaterThan(0);
      await first.stop();
      await first.stop(); // idempotent
      expect(processesMentioning(dir)).toEqual([]);
      expect(alive(taskPid)).toBe(false);
      const second = await startLocalRuntime({ dir });
      try {
        const out = await second.ctr([...ns, 'run', '--rm', '--net-host', IMAGES.busybox, 'smoke-again', 'echo', 'again']);
        expect(out.trim()).toBe('again');
        // the first instance's container is gone
        expect(await second.ctr([...ns, 'containers', 'ls', '-q'])).not.toContain('smoke-bg');
      } finally {
        await second.stop();
      }
      expect(processesMentioning(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, SLOW);

  it('builds byte-identical images from identical inputs', async () => {
    const dirs = [mkdtempSync(join(tmpdir(), 'agent-img-')), mkdtempSync(join(tmpdir(), 'agent-img-'))];
    try {
      const builds = await Promise.all(
        dirs.map(async (d) => {
          const r = await sh(process.execPath, [join(LOCAL_RUNTIME_DIR, 'build-images.mjs'), '--out', d, '--force', '--json']);
          expect(r.code, r.stderr).toBe(0);
          return JSON.parse(r.stdout) as { images: Record<string, { manifestDigest: string }> };
        }),
      );
      const digests = builds.map((b) => Object.fromEntries(Object.entries(b.images).map(([k, v]) => [k, v.manifestDigest])));
      expect(digests[0]).toEqual(digests[1]);
      expect(new Set(Object.values(digests[0]!)).size).toBe(3); // busybox, busybox:v2, pause all differ
      expect(digests[0]).toEqual(
        Object.fromEntries(
          await Promise.all((['busybox', 'busybox-v2', 'pause'] as const).map(async (n) => [n, (await imageArchive(n)).manifestDigest])),
        ),
      );
      const a = await buildVariantImage('smoke', join(dirs[0]!, 'v.tar'));
      const b = await buildVariantImage('smoke', join(dirs[1]!, 'v.tar'));
      const c = await buildVariantImage('smoke2', join(dirs[1]!, 'v2.tar'));
      expect(a.manifestDigest).toBe(b.manifestDigest);
      expect(c.manifestDigest).not.toBe(a.manifestDigest);
      expect(readFileSync(a.file).equals(readFileSync(b.file))).toBe(true);
    } finally {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  }, SLOW);
});
