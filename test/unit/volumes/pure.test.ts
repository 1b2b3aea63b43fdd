// The pure decisions of the volume layer, a table each: hostPath type checks,
// tmpfs sizes, downward API content, atomic-writer plans, mount paths,
// mountinfo parsing, fsGroup modes, set-up order.
import { describe, expect, it } from 'vitest';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { checkPayloadPath, planWrite, timestampPrefix, type FileProjection } from '../../../src/volumes/atomic-writer.js';
import { downwardApiPayload, formatMap, goQuote, resourceValue } from '../../../src/volumes/downward-api.js';
import { memoryVolumeSize, podMemoryLimit } from '../../../src/volumes/empty-dir.js';
import { checkHostPath, type PathKind } from '../../../src/volumes/host-path.js';
import { setUpOrder } from '../../../src/volumes/manager.js';
import { parseMountInfo } from '../../../src/volumes/mounter.js';
import { containerMounts, expandSubPathExpr, joinSubPath, mountSubPath } from '../../../src/volumes/mounts.js';
import { fsGroupMode } from '../../../src/volumes/ownership.js';
import { volumeHostPath, volumeKind } from '../../../src/volumes/paths.js';
import { unservableVolumes } from '../../../src/volumes/index.js';

const GI = 1024 ** 3;
const MI = 1024 ** 2;
const NODE = { memoryBytes: 8 * GI, cpuMilli: 4000, ephemeralStorageBytes: 100 * GI };

function pod(spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): Pod {
  const d = decodePod({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid: 'u1', ...metadata }, spec: { containers: [{ name: 'c', image: 'i:1' }], ...spec } });
  if (!d.ok) throw new Error(JSON.stringify(d.problems));
  return d.pod;
}

describe('checkHostPath (the kubelet checkType)', () => {
  it.each<[string | undefined, PathKind, ReturnType<typeof checkHostPath>]>([
    [undefined, 'missing', { do: 'nothing' }],
    ['', 'file', { do: 'nothing' }],
    ['DirectoryOrCreate', 'missing', { do: 'mkdir' }],
    ['DirectoryOrCreate', 'directory', { do: 'nothing' }],
    ['DirectoryOrCreate', 'file', { do: 'fail', message: 'hostPath type check failed: /p is not a directory' }],
    ['Directory', 'directory', { do: 'nothing' }],
    ['Directory', 'missing', { do: 'fail', message: 'hostPath type check failed: /p is not a directory' }],
    ['Directory', 'file', { do: 'fail', message: 'hostPath type check failed: /p is not a directory' }],
    ['FileOrCreate', 'missing', { do: 'create-file' }],
    ['FileOrCreate', 'file', { do: 'nothing' }],
    ['FileOrCreate', 'directory', { do: 'fail', message: 'hostPath type check failed: /p is not a file' }],
    ['File', 'file', { do: 'nothing' }],
    ['File', 'missing', { do: 'fail', message: 'hostPath type check failed: /p is not a file' }],
    ['File', 'char-device', { do: 'fail', message: 'hostPath type check failed: /p is not a file' }],
    ['Socket', 'socket', { do: 'nothing' }],
    ['Socket', 'file', { do: 'fail', message: 'hostPath type check failed: /p is not a socket file' }],
    ['CharDevice', 'char-device', { do: 'nothing' }],
    ['CharDevice', 'block-device', { do: 'fail', message: 'hostPath type check failed: /p is not a character device' }],
    ['BlockDevice', 'block-device', { do: 'nothing' }],
    ['BlockDevice', 'missing', { do: 'fail', message: 'hostPath type check failed: /p is not a block device' }],
    ['Pipe', 'other', { do: 'fail', message: 'Pipe is an invalid volume type' }],
  ])('type %j with %s there: %j', (type, kind, want) => {
    expect(checkHostPath('/p', type, kind)).toEqual(want);
  });
});

describe('memory-backed emptyDir size (SizeMemoryBackedVolumes)', () => {
  const limits = (memory: string) => ({ resources: { limits: { memory } } });
  it.each<[string, Record<string, unknown>, Record<string, unknown>, boolean, number]>([
    ['no limits: node memory', { containers: [{ name: 'c', image: 'i:1' }] }, {}, true, 8 * GI],
    ['sizeLimit below node memory', { containers: [{ name: 'c', image: 'i:1' }] }, { sizeLimit: '64Mi' }, true, 64 * MI],
    ['pod limit (sum of containers)', { containers: [{ name: 'a', image: 'i:1', ...limits('100Mi') }, { name: 'b', image: 'i:1', ...limits('50Mi') }] }, {}, true, 150 * MI],
    ['sizeLimit below the pod limit', { containers: [{ name: 'a', image: 'i:1', ...limits('100Mi') }] }, { sizeLimit: '10Mi' }, true, 10 * MI],
    ['sizeLimit above the pod limit: the pod limit', { containers: [{ name: 'a', image: 'i:1', ...limits('100Mi') }] }, { sizeLimit: '1Gi' }, true, 100 * MI],
    ['one container without a limit: not limited', { containers: [{ name: 'a', image: 'i:1', ...limits('100Mi') }, { name: 'b', image: 'i:1' }] }, {}, true, 8 * GI],
    ['an init container above the sum', { initContainers: [{ name: 'i', image: 'i:1', ...limits('300Mi') }], containers: [{ name: 'a', image: 'i:1', ...limits('100Mi') }] }, {}, true, 300 * MI],
    ['sizeLimit above node memory: node memory', { containers: [{ name: 'c', image: 'i:1' }] }, { sizeLimit: '64Gi' }, true, 8 * GI],
    ['sizeLimit 0: ignored', { containers: [{ name: 'c', image: 'i:1' }] }, { sizeLimit: '0' }, true, 8 * GI],
    ['gate off: the kernel default', { containers: [{ name: 'c', image: 'i:1' }] }, { sizeLimit: '64Mi' }, false, 0],
  ])('%s', (_name, spec, emptyDir, gate, want) => {
    const p = pod({ ...spec, volumes: [{ name: 'm', emptyDir: { medium: 'Memory', ...emptyDir } }] });
    expect(memoryVolumeSize(p, p.spec.volumes![0]!, 8 * GI, gate)).toBe(want);
  });
  it('podMemoryLimit is undefined without limits', () => {
    expect(podMemoryLimit(pod({}))).toBeUndefined();
  });
});

describe('downward API content', () => {
  it.each([
    ['plain', '"plain"'],
    ['with "quotes" and \\', '"with \\"quotes\\" and \\\\"'],
    ['tab\tnew\nline', '"tab\\tnew\\nline"'],
    ['bell\x07 del\x7f nul\x00', '"bell\\a del\\x7f nul\\x00"'],
    ['héllo ✓', '"héllo ✓"'],
    ['zero\u200bwidth', '"zero\\u200bwidth"'],
  ])('goQuote(%j) = %s', (s, want) => {
    expect(goQuote(s)).toBe(want);
  });

  it('formatMap: sorted key="value" lines without a final newline', () => {
    expect(formatMap({ b: '2', a: 'x y', 'app.io/k': '' })).toBe('a="x y"\napp.io/k=""\nb="2"');
    expect(formatMap({})).toBe('');
  });

  const rp = pod({
    containers: [{ name: 'c', image: 'i:1', resources: { requests: { cpu: '250m', memory: '64Mi' }, limits: { cpu: '1500m', memory: '128Mi' } } }, { name: 'free', image: 'i:1' }],
  });
  it.each<[string, string, string | undefined, string]>([
    ['c', 'requests.cpu', undefined, '1'],
    ['c', 'requests.cpu', '1m', '250'],
    ['c', 'limits.cpu', '1', '2'],
    ['c', 'limits.cpu', '100m', '15'],
    ['c', 'limits.memory', undefined, String(128 * MI)],
    ['c', 'limits.memory', '1Mi', '128'],
    ['c', 'requests.memory', '1Gi', '1'],
    ['free', 'limits.cpu', '1m', '4000'],
    ['free', 'limits.memory', '1Gi', '8'],
    ['free', 'requests.memory', undefined, '0'],
    ['free', 'limits.ephemeral-storage', '1Gi', '100'],
  ])('resourceValue %s %s / %s = %s', (containerName, resource, divisor, want) => {
    expect(resourceValue(rp, { containerName, resource, ...(divisor ? { divisor } : {}) }, NODE)).toBe(want);
  });

  it('resourceValue of a container the pod lacks fails naming it', () => {
    expect(() => resourceValue(rp, { containerName: 'nope', resource: 'limits.cpu' }, NODE)).toThrow('container "nope" not found');
  });

  it('payload: field values, modes (item, default, fsGroup)', () => {
    const spec = (extra: Record<string, unknown>) => ({
      ...extra,
      volumes: [
        {
          name: 'info',
          downwardAPI: {
            defaultMode: 0o600,
            items: [
              { path: 'name', fieldRef: { fieldPath: 'metadata.name' } },
              { path: 'ns', fieldRef: { fieldPath: 'metadata.namespace' } },
              { path: 'uid', fieldRef: { fieldPath: 'metadata.uid' } },
              { path: 'meta/labels', fieldRef: { fieldPath: 'metadata.labels' }, mode: 0o444 },
              { path: 'annotations', fieldRef: { fieldPath: 'metadata.annotations' } },
              { path: 'tier', fieldRef: { fieldPath: "metadata.labels['tier']" } },
              { path: 'missing', fieldRef: { fieldPath: "metadata.annotations['none']" } },
            ],
          },
        },
      ],
    });
    const p = pod(spec({}), { labels: { tier: 'db', app: 'x' }, annotations: { note: 'a "b"' } });
    const files = Object.fromEntries(downwardApiPayload(p, p.spec.volumes![0]!, NODE));
    expect(files).toEqual({
      name: { content: 'p', mode: 0o600 },
      ns: { content: 'ns', mode: 0o600 },
      uid: { content: 'u1', mode: 0o600 },
      'meta/labels': { content: 'app="x"\ntier="db"', mode: 0o444 },
      annotations: { content: 'note="a \\"b\\""', mode: 0o600 },
      tier: { content: 'db', mode: 0o600 },
      missing: { content: '', mode: 0o600 },
    });
    const g = pod(spec({ securityContext: { fsGroup: 2000 } }));
    const withGroup = downwardApiPayload(g, g.spec.volumes![0]!, NODE);
    expect(withGroup.get('name')!.mode).toBe(0o640);
    expect(withGroup.get('meta/labels')!.mode).toBe(0o444);
  });

  it('the API default mode is 0644', () => {
    const p = pod({ volumes: [{ name: 'info', downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name' } }] } }] });
    expect(downwardApiPayload(p, p.spec.volumes![0]!, NODE).get('n')).toEqual({ content: 'p', mode: 0o644 });
  });
});

describe('atomic writer decisions', () => {
  it.each<[string, string | undefined]>([
    ['a', undefined],
    ['a/b/c', undefined],
    ['..a', "invalid path: must not start with '..': ..a"],
    ['a/../b', "invalid path: must not contain '..': a/../b"],
    ['/abs', 'invalid path: must be relative path: /abs'],
    ['', 'invalid path: must not be empty'],
  ])('checkPayloadPath(%j): %j', (path, want) => {
    expect(checkPayloadPath(path)).toBe(want);
  });

  const f = (content: string, mode = 0o644): FileProjection => ({ content, mode });
  it.each<[string, Array<[string, FileProjection]>, Array<[string, FileProjection]> | undefined, { write: boolean; remove: string[] }]>([
    ['nothing written yet', [['a', f('1')]], undefined, { write: true, remove: [] }],
    ['same content and modes', [['a', f('1')], ['d/b', f('2')]], [['d/b', f('2')], ['a', f('1')]], { write: false, remove: [] }],
    ['content changed', [['a', f('2')]], [['a', f('1')]], { write: true, remove: [] }],
    ['mode changed', [['a', f('1', 0o600)]], [['a', f('1')]], { write: true, remove: [] }],
    ['a file added', [['a', f('1')], ['b', f('2')]], [['a', f('1')]], { write: true, remove: [] }],
    ['a top-level path gone', [['a', f('1')]], [['a', f('1')], ['old/x', f('2')]], { write: true, remove: ['old'] }],
    ['a file gone under a kept directory', [['d/a', f('1')]], [['d/a', f('1')], ['d/b', f('2')]], { write: true, remove: [] }],
  ])('%s', (_name, payload, current, want) => {
    expect(planWrite(new Map(payload), current && new Map(current))).toEqual(want);
  });

  it('timestamped directory names follow the kubelet (..2006_01_02_15_04_05.)', () => {
    expect(timestampPrefix(new Date(Date.UTC(2026, 0, 2, 3, 4, 5)))).toBe('..2026_01_02_03_04_05.');
  });
});

describe('container mounts', () => {
  const p = pod({
    volumes: [
      { name: 'host', hostPath: { path: '/srv/data' } },
      { name: 'scratch', emptyDir: {} },
      { name: 'info', downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name' } }] } },
    ],
    containers: [
      {
        name: 'c',
        image: 'i:1',
        volumeMounts: [
          { name: 'host', mountPath: '/data', readOnly: true, mountPropagation: 'HostToContainer' },
          { name: 'scratch', mountPath: '/s', subPath: 'a/b' },
          { name: 'scratch', mountPath: '/e', subPathExpr: 'logs/$(POD)' },
          { name: 'info', mountPath: '/etc/info' },
        ],
      },
    ],
  });
  it('host paths under --root-dir, subPath and subPathExpr joined, readOnly and propagation', () => {
    expect(containerMounts(p, p.spec.containers[0]!, '/var/lib/agent', new Map([['POD', 'p']]))).toEqual([
      { containerPath: '/data', hostPath: '/srv/data', readonly: true, propagation: 'HOST_TO_CONTAINER' },
      { containerPath: '/s', hostPath: '/var/lib/agent/pods/u1/volumes/platform.io~empty-dir/scratch/a/b', readonly: false, propagation: 'PRIVATE' },
      { containerPath: '/e', hostPath: '/var/lib/agent/pods/u1/volumes/platform.io~empty-dir/scratch/logs/p', readonly: false, propagation: 'PRIVATE' },
      // downwardAPI: read-only whatever the mount says.
      { containerPath: '/etc/info', hostPath: '/var/lib/agent/pods/u1/volumes/platform.io~downward-api/info', readonly: true, propagation: 'PRIVATE' },
    ]);
  });
  it('a subPathExpr whose variable is missing is refused naming it', () => {
    expect(() => containerMounts(p, p.spec.containers[0]!, '/r', new Map())).toThrow('missing value for POD');
  });

  it.each<[string, Record<string, string>, ReturnType<typeof expandSubPathExpr>]>([
    ['$(A)/$(B)', { A: 'x', B: 'y' }, { ok: true, path: 'x/y' }],
    ['$$(A)', { A: 'x' }, { ok: true, path: '$(A)' }],
    ['$(B)-$(A)', {}, { ok: false, missing: ['A', 'B'] }],
    ['$(A)', { A: '' }, { ok: false, missing: ['A'] }],
    ['plain', {}, { ok: true, path: 'plain' }],
  ])('expandSubPathExpr(%j)', (expr, env, want) => {
    expect(expandSubPathExpr(expr, new Map(Object.entries(env)))).toEqual(want);
  });

  it.each<[Record<string, string>, Record<string, string>, string]>([
    [{ subPathExpr: '$(A)' }, { A: '/etc' }, 'error SubPath `/etc` must not be an absolute path'],
    [{ subPathExpr: '$(A)/x' }, { A: '..' }, "unable to provision SubPath `../x`: must not contain '..'"],
  ])('mountSubPath refuses %j with %j', (m, env, message) => {
    expect(() => mountSubPath({ name: 'v', mountPath: '/m', ...m }, new Map(Object.entries(env)))).toThrow(message);
  });

  it.each([
    ['/a', 'b', '/a/b'],
    ['/a/', 'b/c/', '/a/b/c'],
    ['/a', './b', '/a/b'],
    ['/a', '', '/a'],
  ])('joinSubPath(%j, %j) = %j', (base, sub, want) => {
    expect(joinSubPath(base, sub)).toBe(want);
  });

  it('volume kinds and host paths', () => {
    const q = pod({ volumes: [{ name: 'cfg', configMap: { name: 'x' } }, { name: 's', emptyDir: {} }, { name: 'n', nfs: { server: 'h', path: '/' } }] });
    expect(q.spec.volumes!.map(volumeKind)).toEqual(['configMap', 'emptyDir', 'nfs']);
    expect(volumeHostPath('/r', 'u', q.spec.volumes![0]!)).toBe('/r/pods/u/volumes/platform.io~configmap/cfg');
    expect(volumeHostPath('/r', 'u', q.spec.volumes![2]!)).toBeUndefined();
  });
});

describe('mountinfo', () => {
  it('reads mount points (octal escapes), types and super options', () => {
    const text = [
      '22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro',
      '99 22 0:55 / /var/lib/agent/pods/u/volumes/platform.io~empty-dir/my\\040vol rw,relatime shared:60 - tmpfs tmpfs rw,size=65536k',
      '100 22 0:56 / /x rw - tmpfs tmpfs rw',
      'garbage',
    ].join('\n');
    expect(parseMountInfo(text)).toEqual([
      { mountPoint: '/', fsType: 'ext4', superOptions: 'rw,errors=remount-ro' },
      { mountPoint: '/var/lib/agent/pods/u/volumes/platform.io~empty-dir/my vol', fsType: 'tmpfs', superOptions: 'rw,size=65536k' },
      { mountPoint: '/x', fsType: 'tmpfs', superOptions: 'rw' },
    ]);
  });
});

describe('fsGroup modes (SetVolumeOwnership)', () => {
  it.each([
    [0o644, false, false, 0o664],
    [0o600, false, true, 0o640],
    [0o755, true, false, 0o2775],
    [0o700, true, true, 0o2750],
    [0o100644, false, false, 0o664],
  ])('mode %o (dir %s, read-only %s) → %o', (mode, isDir, ro, want) => {
    expect(fsGroupMode(mode, isDir, ro)).toBe(want);
  });
});

describe('set-up order', () => {
  it('hostPath volumes first, the others in their order', () => {
    const p = pod({ volumes: [{ name: 'a', emptyDir: {} }, { name: 'b', hostPath: { path: '/b' } }, { name: 'c', configMap: {} }, { name: 'd', hostPath: { path: '/d' } }] });
    expect(setUpOrder(p.spec.volumes!).map((v) => v.name)).toEqual(['b', 'd', 'a', 'c']);
  });
});

describe('unservable volumes (for a plan shown without acting)', () => {
  it('names the kinds no built-in plugin serves, with the reason the pod waits', () => {
    const p = pod({ volumes: [{ name: 'a', emptyDir: {} }, { name: 'cfg', configMap: { name: 'x' } }, { name: 'tok', projected: { sources: [] } }, { name: 'h', hostPath: { path: '/h' } }] });
    expect(unservableVolumes(p)).toEqual([
      { volume: 'cfg', kind: 'configMap', message: 'volume "cfg" (configMap) cannot be served by a standalone agent: no API server' },
      { volume: 'tok', kind: 'projected', message: 'volume "tok" (projected) cannot be served by a standalone agent: no API server' },
    ]);
  });
});
