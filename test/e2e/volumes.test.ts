// Volumes on a real containerd (issue 15, item 5): each hostPath type check —
// pods that must wait with the kubelet's message and a pod that runs with
// every type satisfied —; a configMap volume making its pod wait while others
// run; emptyDir on disk shared by two containers and in memory as a tmpfs of
// its sizeLimit, with subPathExpr, a read-only mount and fsGroup; downward API
// files and their refresh after a label change in the manifest; nothing left
// mounted or on disk once the pods are removed.
// Containers report what they see into a hostPath directory the test reads.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mountsUnder } from '../../src/volumes/mounter.js';
import { SLEEP_FOREVER, container, field, logLine, pod, podSandboxes, podUid, running, staticName, waitFor, waitForLineAfter, type Node } from './helpers/agent-node.js';
import { skipWithoutRuntime, useRuntime } from './helpers/e2e-env.js';

const skip = skipWithoutRuntime('volume');

/** A shell loop that keeps running and exits at once on SIGTERM, after `script`. */
const thenSleep = (script: string): string[] => ['sh', '-c', `${script}; trap 'exit 0' TERM; while true; do sleep 1 & wait; done`];
/** A file a container writes, once complete: a shell redirection creates it empty before the command writes its line. */
const readOr = (p: string): string | undefined => {
  const text = existsSync(p) ? readFileSync(p, 'utf8') : '';
  return text === '' ? undefined : text;
};

describe.skipIf(skip)('volumes on a real containerd', () => {
  const env = useRuntime();
  let node: Node;
  let socket: Server | undefined;

  afterEach(async () => {
    await new Promise<void>((r) => (socket ? socket.close(() => r()) : r()));
    socket = undefined;
    await node?.dispose().catch(async (e: unknown) => {
      // A failed test may leave a tmpfs mounted: unmount it so the directory can go.
      for (const m of await mountsUnder(node.dir)) execFileSync('umount', [m.mountPoint]);
      throw e;
    });
  }, 60_000);

  it('hostPath: every type check passes for a pod that runs, fails with the kubelet message for pods that wait (no sandbox), and a fixed path is picked up; a configMap pod waits too', async () => {
    node = env.newNode();
    const h = join(node.dir, 'host');
    const out = join(node.dir, 'out');
    mkdirSync(join(h, 'dir'), { recursive: true });
    writeFileSync(join(h, 'file'), 'x');
    execFileSync('mknod', [join(h, 'blk'), 'b', '7', '250']);
    socket = createServer();
    await new Promise<void>((r) => socket!.listen(join(h, 'sock'), r));

    const hp = (name: string, path: string, type: string) => ({ name, hostPath: { path, type } });
    node.writeManifest('hp-ok.yaml', pod('hp-ok', [container('main', thenSleep('test -d /v/dir && test -d /v/doc && test -f /v/file && test -f /v/foc && test -S /v/sock && test -c /v/chr && test -b /v/blk && test -f /v/any && echo ok > /out/hp-ok'), {
      volumeMounts: ['dir', 'doc', 'file', 'foc', 'sock', 'chr', 'blk', 'any'].map((n) => ({ name: n, mountPath: `/v/${n}` })).concat([{ name: 'out', mountPath: '/out' }]),
    })], { volumes: [
      hp('dir', join(h, 'dir'), 'Directory'), hp('doc', join(h, 'made/deep'), 'DirectoryOrCreate'), hp('file', join(h, 'file'), 'File'), hp('foc', join(h, 'made.txt'), 'FileOrCreate'),
      hp('sock', join(h, 'sock'), 'Socket'), hp('chr', '/dev/null', 'CharDevice'), hp('blk', join(h, 'blk'), 'BlockDevice'), hp('any', join(h, 'file'), ''), hp('out', out, 'DirectoryOrCreate'),
    ] }));
    const failing: Array<[string, string, string, string]> = [
      ['hp-dir', join(h, 'later'), 'Directory', 'is not a directory'],
      ['hp-file', join(h, 'dir'), 'File', 'is not a file'],
      ['hp-sock', join(h, 'file'), 'Socket', 'is not a socket file'],
      ['hp-chr', join(h, 'file'), 'CharDevice', 'is not a character device'],
      ['hp-blk', join(h, 'file'), 'BlockDevice', 'is not a block device'],
      ['hp-doc', join(h, 'file'), 'DirectoryOrCreate', 'is not a directory'],
      ['hp-foc', join(h, 'dir'), 'FileOrCreate', 'is not a file'],
    ];
    for (const [name, path, type] of failing) node.writeManifest(`${name}.yaml`, pod(name, [container('main', SLEEP_FOREVER, { volumeMounts: [{ name: 'v', mountPath: '/v' }] })], { volumes: [hp('v', path, type)] }));
    node.writeManifest('cm.yaml', pod('cm', [container('main', SLEEP_FOREVER, { volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg' }] })], { volumes: [{ name: 'cfg', configMap: { name: 'settings' } }] }));
    const agent = await node.start();

    const okUid = await podUid(agent, 'hp-ok');
    await running(env.cri, okUid, 'main', 20_000, agent);
    expect(await waitFor('hp-ok saw every hostPath type', 15_000, () => readOr(join(out, 'hp-ok')), agent)).toBe('ok\n');
    expect(readFileSync(join(h, 'made.txt'), 'utf8')).toBe('');

    for (const [name, path, , why] of failing) {
      const line = await waitForLineAfter(agent, logLine('MountVolume.SetUp failed', { pod: staticName(name), volume: 'v', kind: 'hostPath' }), { timeoutMs: 15_000 });
      expect(field(line, 'err')).toBe(`hostPath type check failed: ${path} ${why}`);
      expect(await podSandboxes(env.cri, await podUid(agent, name))).toEqual([]);
    }
    const cm = await waitForLineAfter(agent, logLine('volume "cfg" (configMap) cannot be served by a standalone agent: no API server', { pod: staticName('cm'), volume: 'cfg', kind: 'configMap' }), { timeoutMs: 15_000 });
    expect(cm).toMatch(/^W/);
    const sync = await waitForLineAfter(agent, (l) => logLine('Error syncing pod, skipping', { pod: staticName('cm') })(l), { timeoutMs: 15_000 });
    expect(field(sync, 'err')).toContain('configMap volumes cannot be served by a standalone agent: no API server');
    expect(await podSandboxes(env.cri, await podUid(agent, 'cm'))).toEqual([]);

    // The sync retries a waiting pod: once the directory exists, hp-dir starts.
    mkdirSync(join(h, 'later'));
    await running(env.cri, await podUid(agent, 'hp-dir'), 'main', 25_000, agent);
    // Still waiting, still no sandbox: the configMap pod.
    expect(await podSandboxes(env.cri, await podUid(agent, 'cm'))).toEqual([]);
  }, 90_000);

  it('emptyDir on disk shared by two containers and in memory with its size; downward API files refreshed after a label change; nothing left once the pods are gone', async () => {
    node = env.newNode();
    const out = join(node.dir, 'out');
    const outVolume = { name: 'out', hostPath: { path: out, type: 'DirectoryOrCreate' } };
    node.writeManifest('shared.yaml', pod('shared', [
      container('writer', thenSleep("echo hello > /scratch/msg; grep ' /mem ' /proc/mounts > /out/mem-mounts"), { volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }, { name: 'mem', mountPath: '/mem' }, { name: 'out', mountPath: '/out' }] }),
      container('reader', thenSleep('until [ -f /scratch/msg ]; do sleep 0.2; done; cat /scratch/msg > /out/seen'), { volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }, { name: 'out', mountPath: '/out' }] }),
      // subPathExpr from the environment, a read-only mount of the same volume, fsGroup on the volume.
      container('sub', thenSleep("echo in-sub > /logs/x; if touch /ro/y 2>/dev/null; then echo writable; else echo read-only; fi > /out/ro; stat -c '%g %A' /ro > /out/group"), {
        env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
        volumeMounts: [{ name: 'scratch', mountPath: '/logs', subPathExpr: 'logs/$(POD_NAME)' }, { name: 'scratch', mountPath: '/ro', readOnly: true }, { name: 'out', mountPath: '/out' }],
      }),
    ], { securityContext: { fsGroup: 2345 }, volumes: [{ name: 'scratch', emptyDir: {} }, { name: 'mem', emptyDir: { medium: 'Memory', sizeLimit: '16Mi' } }, outVolume] }));
    const dapi = (tier: string) => ({
      ...pod('dapi', [container('main', thenSleep('cat /info/name > /out/name; cat /info/cpu > /out/cpu; cat /info/mem > /out/mem; while true; do cat /info/labels > /out/.l && mv /out/.l /out/labels; sleep 0.2; done'), {
        resources: { limits: { cpu: '250m', memory: '64Mi' } },
        volumeMounts: [{ name: 'info', mountPath: '/info' }, { name: 'out', mountPath: '/out' }],
      })], { volumes: [{ name: 'info', downwardAPI: { items: [
        { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
        { path: 'name', fieldRef: { fieldPath: 'metadata.name' } },
        { path: 'cpu', resourceFieldRef: { containerName: 'main', resource: 'limits.cpu', divisor: '1m' } },
        { path: 'mem', resourceFieldRef: { containerName: 'main', resource: 'limits.memory', divisor: '1Mi' } },
      ] } }, { ...outVolume, hostPath: { path: join(out, 'dapi'), type: 'DirectoryOrCreate' } }] }),
      metadata: { name: 'dapi', labels: { app: 'web', tier } },
    });
    node.writeManifest('dapi.yaml', dapi('one'));
    const agent = await node.start();
    const sharedUid = await podUid(agent, 'shared');
    const dapiUid = await podUid(agent, 'dapi');

    // emptyDir on disk: what the writer wrote, the reader saw.
    expect(await waitFor('the reader saw the writer', 20_000, () => readOr(join(out, 'seen')), agent)).toBe('hello\n');
    // emptyDir in memory: a tmpfs of the sizeLimit, inside the container and on the host.
    expect(await waitFor('the writer listed its /mem', 10_000, () => readOr(join(out, 'mem-mounts')), agent)).toMatch(/^tmpfs \/mem tmpfs \S*size=16384k/);
    const scratch = join(node.root, 'pods', sharedUid, 'volumes/platform.io~empty-dir/scratch');
    expect(await waitFor('the subPathExpr mount was written', 10_000, () => readOr(join(scratch, 'logs/shared-e2e-node/x')), agent)).toBe('in-sub\n');
    expect(await waitFor('the read-only mount was tried', 10_000, () => readOr(join(out, 'ro')), agent)).toBe('read-only\n');
    expect(await waitFor('the volume group was listed', 10_000, () => readOr(join(out, 'group')), agent)).toBe('2345 drwxrwsrwx\n');
    const memDir = join(node.root, 'pods', sharedUid, 'volumes/platform.io~empty-dir/mem');
    expect((await mountsUnder(join(node.root, 'pods'))).map((m) => [m.mountPoint, m.fsType, /size=16384k/.test(m.superOptions)])).toEqual([[memDir, 'tmpfs', true]]);

    // Downward API: contents, then the refresh after a label change.
    const d = join(out, 'dapi');
    expect(await waitFor('downward API labels', 20_000, () => readOr(join(d, 'labels')), agent)).toBe('app="web"\ntier="one"');
    expect([readOr(join(d, 'name')), readOr(join(d, 'cpu')), readOr(join(d, 'mem'))]).toEqual([`dapi-e2e-node`, '250', '64']);
    const started = (await running(env.cri, dapiUid, 'main', 5_000, agent)).id;
    node.writeManifest('dapi.yaml', dapi('two'));
    expect(await waitFor('labels refreshed', 20_000, () => readOr(join(d, 'labels')) === 'app="web"\ntier="two"', agent)).toBe(true);
    // A label change does not restart the container.
    expect((await running(env.cri, dapiUid, 'main', 5_000, agent)).id).toBe(started);

    // Removed: torn down, unmounted, the pods' directories gone.
    node.removeManifest('shared.yaml');
    node.removeManifest('dapi.yaml');
    await waitForLineAfter(agent, logLine('Pod torn down', { pod: staticName('shared') }), { timeoutMs: 20_000 });
    await waitForLineAfter(agent, logLine('Pod torn down', { pod: staticName('dapi') }), { timeoutMs: 20_000 });
    expect(await mountsUnder(node.root)).toEqual([]);
    expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(node.root);
    expect(existsSync(join(node.root, 'pods')) ? readdirSync(join(node.root, 'pods')) : []).toEqual([]);
  }, 90_000);
});
