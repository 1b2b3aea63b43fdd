// The volume layer on a real filesystem (a temporary --root-dir): hostPath
// checks against real files, sockets and devices; emptyDir on disk, in memory
// (tmpfs: the suite runs as root; without root, the clear error), with
// fsGroup; downward API files written atomically and refreshed; subPath
// directories; an unservable kind; teardown leaving nothing mounted.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { createVolumes, type VolumeManager } from '../../../src/volumes/index.js';
import { mountsUnder } from '../../../src/volumes/mounter.js';
import { tempDir } from '../../helpers/agent-process.js';
import { testLogger, type LogRecord } from '../../helpers/test-logger.js';

const MI = 1024 ** 2;
const isRoot = process.getuid?.() === 0;
const tmp = tempDir('agent-volumes-');
const root = `${tmp.dir}/root`;
const host = `${tmp.dir}/host`;
const records: LogRecord[] = [];
let volumes: VolumeManager;
let socketServer: Server;
const signal = new AbortController().signal;

function pod(name: string, spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): Pod {
  const d = decodePod({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', uid: `uid-${name}`, ...metadata }, spec: { containers: [{ name: 'c', image: 'i:1' }], ...spec } });
  if (!d.ok) throw new Error(JSON.stringify(d.problems));
  return d.pod;
}
const hostPathPod = (name: string, path: string, type: string) => pod(name, { volumes: [{ name: 'h', hostPath: { path, type } }] });
const volDir = (uid: string, plugin: string, name: string) => `${root}/pods/${uid}/volumes/platform.io~${plugin}/${name}`;

beforeAll(async () => {
  mkdirSync(host, { recursive: true });
  mkdirSync(`${host}/dir`);
  writeFileSync(`${host}/file`, 'x');
  socketServer = createServer();
  await new Promise<void>((r) => socketServer.listen(`${host}/sock`, r));
  if (isRoot) {
    execFileSync('mknod', [`${host}/chr`, 'c', '1', '3']);
    execFileSync('mknod', [`${host}/blk`, 'b', '7', '250']);
  } else {
    symlinkSync('/dev/null', `${host}/chr`);
  }
  volumes = createVolumes({ rootDirectory: root, node: { memoryBytes: 8 * 1024 * MI, cpuMilli: 2000, ephemeralStorageBytes: 0 }, sizeMemoryBackedVolumes: true, log: testLogger(records) });
});

afterAll(async () => {
  await new Promise<void>((r) => socketServer.close(() => r()));
  // Nothing of this suite may stay mounted, whatever failed.
  for (const m of await mountsUnder(tmp.dir)) execFileSync('umount', [m.mountPoint]);
  tmp.cleanup();
});

describe('hostPath type checks against real paths', () => {
  const rows: Array<[string, string, string | undefined]> = [
    ['Directory', 'dir', undefined],
    ['Directory', 'file', 'is not a directory'],
    ['Directory', 'missing', 'is not a directory'],
    ['File', 'file', undefined],
    ['File', 'dir', 'is not a file'],
    ['Socket', 'sock', undefined],
    ['Socket', 'file', 'is not a socket file'],
    ['CharDevice', 'chr', undefined],
    ['CharDevice', 'file', 'is not a character device'],
    ['BlockDevice', 'file', 'is not a block device'],
    ['', 'missing', undefined],
    ...(isRoot ? ([['BlockDevice', 'blk', undefined]] as Array<[string, string, string | undefined]>) : []),
  ];
  it.each(rows)('%s on %s', async (type, what, failure) => {
    const p = hostPathPod(`hp-${type.toLowerCase() || 'none'}-${what}`, `${host}/${what}`, type);
    const out = await volumes.setUp(p, signal);
    if (failure === undefined) expect(out).toEqual({ ready: true });
    else expect(out).toMatchObject({ ready: false, volume: 'h', kind: 'hostPath', message: `MountVolume.SetUp failed for volume "h" : hostPath type check failed: ${host}/${what} ${failure}` });
  });

  it('DirectoryOrCreate makes a 0755 directory (with its parents); FileOrCreate a 0644 file, not its parent', async () => {
    expect(await volumes.setUp(hostPathPod('doc', `${host}/made/deep`, 'DirectoryOrCreate'), signal)).toEqual({ ready: true });
    expect(statSync(`${host}/made/deep`).mode & 0o7777).toBe(0o755);
    expect(await volumes.setUp(hostPathPod('foc', `${host}/made/f.txt`, 'FileOrCreate'), signal)).toEqual({ ready: true });
    const st = statSync(`${host}/made/f.txt`);
    expect([st.isFile(), st.mode & 0o777, st.size]).toEqual([true, 0o644, 0]);
    const out = await volumes.setUp(hostPathPod('foc-noparent', `${host}/absent/f.txt`, 'FileOrCreate'), signal);
    expect(out).toMatchObject({ ready: false, message: expect.stringMatching(/^MountVolume\.SetUp failed for volume "h" : ENOENT/) as unknown });
  });

  it('a failed check is retried: the pod becomes ready once the path is right; nothing else of the pod is made while it waits', async () => {
    const p = pod('later', { volumes: [{ name: 'scratch', emptyDir: {} }, { name: 'h', hostPath: { path: `${host}/later`, type: 'Directory' } }] });
    expect((await volumes.setUp(p, signal)).ready).toBe(false);
    expect(existsSync(`${root}/pods/uid-later`)).toBe(false);
    mkdirSync(`${host}/later`);
    expect(await volumes.setUp(p, signal)).toEqual({ ready: true });
    expect(statSync(volDir('uid-later', 'empty-dir', 'scratch')).mode & 0o7777).toBe(0o777);
    await volumes.tearDown('uid-later', signal);
    expect(existsSync(`${root}/pods/uid-later`)).toBe(false);
    expect(existsSync(`${host}/later`)).toBe(true);
  });
});

describe('a kind a standalone node cannot serve', () => {
  it('waits with a clear reason, logged once per change, not on every retry', async () => {
    const p = pod('cm', { volumes: [{ name: 'cfg', configMap: { name: 'settings' } }] });
    const before = records.length;
    const out = await volumes.setUp(p, signal);
    await volumes.setUp(p, signal);
    expect(out).toMatchObject({ ready: false, volume: 'cfg', kind: 'configMap', message: 'MountVolume.SetUp failed for volume "cfg" : configMap volumes cannot be served by a standalone agent: no API server' });
    const lines = records.slice(before).filter((r) => r.level === 'warn');
    expect(lines.map((r) => [r.msg, r.fields['volume'], r.fields['kind']])).toEqual([['volume "cfg" (configMap) cannot be served by a standalone agent: no API server', 'cfg', 'configMap']]);
  });
});

describe('emptyDir', () => {
  it('on disk: 0777 under --root-dir; fsGroup gives the group and setgid; set up again, kept as it is', async () => {
    const p = pod('disk', { securityContext: { fsGroup: 4321 }, volumes: [{ name: 'scratch', emptyDir: {} }] });
    expect(await volumes.setUp(p, signal)).toEqual({ ready: true });
    const dir = volDir('uid-disk', 'empty-dir', 'scratch');
    const st = statSync(dir);
    expect(st.mode & 0o7777).toBe(0o2777);
    if (isRoot) expect(st.gid).toBe(4321);
    writeFileSync(`${dir}/kept`, 'data');
    expect(await volumes.setUp(p, signal)).toEqual({ ready: true });
    expect(readFileSync(`${dir}/kept`, 'utf8')).toBe('data');
    await volumes.tearDown('uid-disk', signal);
    expect(existsSync(`${root}/pods/uid-disk`)).toBe(false);
  });

  it('in memory: a tmpfs of the size SizeMemoryBackedVolumes gives, mounted once, unmounted on teardown (as root; else the clear error)', async () => {
    const p = pod('mem', { volumes: [{ name: 'cache', emptyDir: { medium: 'Memory', sizeLimit: '16Mi' } }] });
    const dir = volDir('uid-mem', 'empty-dir', 'cache');
    const out = await volumes.setUp(p, signal);
    if (!isRoot) {
      expect(out).toMatchObject({ ready: false, volume: 'cache', message: expect.stringContaining('mount -t tmpfs -o size=16777216 tmpfs') as unknown });
      return;
    }
    expect(out).toEqual({ ready: true });
    const mounts = await mountsUnder(`${root}/pods/uid-mem`);
    expect(mounts).toEqual([{ mountPoint: dir, fsType: 'tmpfs', superOptions: expect.stringContaining('size=16384k') as unknown }]);
    expect(await volumes.setUp(p, signal)).toEqual({ ready: true });
    expect(await mountsUnder(`${root}/pods/uid-mem`)).toHaveLength(1);
    await volumes.tearDown('uid-mem', signal);
    expect(await mountsUnder(`${root}/pods/uid-mem`)).toEqual([]);
    expect(existsSync(`${root}/pods/uid-mem`)).toBe(false);
  });

  it.runIf(isRoot)('in memory after an agent restart: a new manager finds the tmpfs mounted and does not mount again', async () => {
    const p = pod('mem2', { containers: [{ name: 'c', image: 'i:1', resources: { limits: { memory: '32Mi' } } }], volumes: [{ name: 'cache', emptyDir: { medium: 'Memory' } }] });
    expect(await volumes.setUp(p, signal)).toEqual({ ready: true });
    const again = createVolumes({ rootDirectory: root, node: { memoryBytes: 8 * 1024 * MI, cpuMilli: 2000, ephemeralStorageBytes: 0 }, sizeMemoryBackedVolumes: true, log: testLogger() });
    expect(await again.setUp(p, signal)).toEqual({ ready: true });
    const mounts = await mountsUnder(`${root}/pods/uid-mem2`);
    expect(mounts.map((m) => m.superOptions.match(/size=\d+k/)?.[0])).toEqual(['size=32768k']);
    await again.tearDown('uid-mem2', signal);
    expect(await mountsUnder(`${root}/pods/uid-mem2`)).toEqual([]);
  });
});

describe('downwardAPI', () => {
  const spec = (extra: Record<string, unknown> = {}) => ({
    ...extra,
    volumes: [{ name: 'info', downwardAPI: { items: [
      { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
      { path: 'meta/name', fieldRef: { fieldPath: 'metadata.name' }, mode: 0o600 },
    ] } }],
  });
  const dir = volDir('uid-dapi', 'downward-api', 'info');

  it('writes through a timestamped directory and ..data; user-visible paths are symlinks; refreshed on a label change, untouched otherwise', async () => {
    const p = pod('dapi', spec(), { labels: { app: 'web', tier: 'a' } });
    expect(await volumes.setUp(p, signal)).toEqual({ ready: true });
    const data1 = readlinkSync(`${dir}/..data`);
    expect(data1).toMatch(/^\.\.\d{4}_\d{2}_\d{2}_\d{2}_\d{2}_\d{2}\.\w+$/);
    expect(readlinkSync(`${dir}/labels`)).toBe('..data/labels');
    expect(readlinkSync(`${dir}/meta`)).toBe('..data/meta');
    expect(readFileSync(`${dir}/labels`, 'utf8')).toBe('app="web"\ntier="a"');
    expect(readFileSync(`${dir}/meta/name`, 'utf8')).toBe('dapi');
    expect(statSync(`${dir}/meta/name`).mode & 0o777).toBe(0o600);
    expect(statSync(`${dir}/labels`).mode & 0o777).toBe(0o644);

    // A resync with nothing changed: the same directory.
    expect(await volumes.setUp(p, signal)).toEqual({ ready: true });
    expect(readlinkSync(`${dir}/..data`)).toBe(data1);

    const changed = pod('dapi', spec(), { labels: { app: 'web', tier: 'b' } });
    expect(await volumes.setUp(changed, signal)).toEqual({ ready: true });
    const data2 = readlinkSync(`${dir}/..data`);
    expect(data2).not.toBe(data1);
    expect(readFileSync(`${dir}/labels`, 'utf8')).toBe('app="web"\ntier="b"');
    // The old timestamped directory is gone; only one remains.
    expect(readdirSync(dir).filter((n) => n.startsWith('..2')).length).toBe(1);
    expect(lstatSync(`${dir}/labels`).isSymbolicLink()).toBe(true);
    await volumes.tearDown('uid-dapi', signal);
    expect(existsSync(`${root}/pods/uid-dapi`)).toBe(false);
  });

  it('a path dropped from the items loses its user-visible symlink', async () => {
    const p = pod('dapi2', spec());
    await volumes.setUp(p, signal);
    const d = volDir('uid-dapi2', 'downward-api', 'info');
    const fewer = pod('dapi2', { volumes: [{ name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } }] });
    await volumes.setUp(fewer, signal);
    expect(existsSync(`${d}/meta`)).toBe(false);
    expect(readdirSync(d).filter((n) => !n.startsWith('..'))).toEqual(['labels']);
    await volumes.tearDown('uid-dapi2', signal);
  });

  it.runIf(isRoot)('fsGroup: group-readable files and setgid directories of the group', async () => {
    const p = pod('dapi3', spec({ securityContext: { fsGroup: 777 } }));
    expect(await volumes.setUp(p, signal)).toEqual({ ready: true });
    const d = volDir('uid-dapi3', 'downward-api', 'info');
    const ts = readlinkSync(`${d}/..data`);
    expect(statSync(`${d}/${ts}/meta/name`).mode & 0o7777).toBe(0o640);
    expect(statSync(`${d}/${ts}/meta/name`).gid).toBe(777);
    expect(statSync(`${d}/${ts}`).mode & 0o2000).toBe(0o2000);
    // Modes already include the group: a resync does not rewrite.
    await volumes.setUp(p, signal);
    expect(readlinkSync(`${d}/..data`)).toBe(ts);
    await volumes.tearDown('uid-dapi3', signal);
  });
});

describe('subPath', () => {
  it('a missing subPath becomes a directory with the volume mode; one leaving the volume through a symlink is refused', async () => {
    const p = pod('sub', { volumes: [{ name: 'scratch', emptyDir: {} }], containers: [{ name: 'c', image: 'i:1', volumeMounts: [{ name: 'scratch', mountPath: '/a', subPath: 'x/y' }, { name: 'scratch', mountPath: '/b', subPath: 'out' }] }] });
    await volumes.setUp(p, signal);
    const base = volDir('uid-sub', 'empty-dir', 'scratch');
    const c = p.spec.containers[0]!;
    await volumes.prepareSubPaths(p, c, [{ containerPath: '/a', hostPath: `${base}/x/y`, readonly: false }], signal);
    expect(statSync(`${base}/x/y`).isDirectory()).toBe(true);
    expect(statSync(`${base}/x/y`).mode & 0o777).toBe(0o777);
    symlinkSync(host, `${base}/out`);
    await expect(volumes.prepareSubPaths(p, c, [{ containerPath: '/b', hostPath: `${base}/out` }].map((m) => ({ ...m, readonly: false })), signal)).rejects.toThrow('failed to prepare subPath for volumeMount "scratch" of container "c"');
    await volumes.tearDown('uid-sub', signal);
    expect(existsSync(host)).toBe(true);
  });
});

describe('orphans', () => {
  it('cleanupOrphans removes the pod directories of UIDs not kept', async () => {
    await volumes.setUp(pod('keep', { volumes: [{ name: 's', emptyDir: {} }] }), signal);
    await volumes.setUp(pod('gone', { volumes: [{ name: 's', emptyDir: {} }] }), signal);
    chmodSync(`${root}/pods`, 0o755);
    await volumes.cleanupOrphans((uid) => uid === 'uid-keep', signal);
    expect(existsSync(`${root}/pods/uid-keep`)).toBe(true);
    expect(existsSync(`${root}/pods/uid-gone`)).toBe(false);
    await volumes.tearDown('uid-keep', signal);
  });
});
