// Volumes and volume mounts validated as the API server does
// (pod-model/pod-validate-volumes.ts): a row per rule, each naming its field;
// and the kinds a standalone node cannot serve decoded far enough to name them.
import { describe, expect, it } from 'vitest';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import { validatePod } from '../../../src/pod-model/pod-validate.js';

type Obj = Record<string, unknown>;
const pod = (spec: Obj = {}): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'i:1' }], ...spec } });
const vol = (...volumes: Obj[]): Obj => pod({ volumes });
const mounts = (volumeMounts: Obj[], volumes: Obj[] = [{ name: 'v', emptyDir: {} }]): Obj => pod({ volumes, containers: [{ name: 'c', image: 'i:1', volumeMounts }] });
const item = (extra: Obj): Obj => ({ name: 'd', downwardAPI: { items: [{ path: 'f', fieldRef: { fieldPath: 'metadata.name' }, ...extra }] } });

function problems(raw: unknown): string[] {
  const d = decodePod(raw);
  return (d.ok ? validatePod(d.pod) : d.problems).map((p) => `${p.field}: ${p.message}`);
}

describe('volume rules', () => {
  it.each<[string, Obj, string]>([
    ['name not a DNS-1123 label', vol({ name: 'Data_1', emptyDir: {} }), 'spec.volumes[0].name: "Data_1" must be a lowercase RFC 1123 label'],
    ['name required', vol({ name: '', emptyDir: {} }), 'spec.volumes[0].name: required value'],
    ['duplicate name', vol({ name: 'a', emptyDir: {} }, { name: 'a', hostPath: { path: '/x' } }), 'spec.volumes[1].name: duplicate volume name "a"'],
    ['no source', vol({ name: 'a' }), 'spec.volumes[0]: exactly one volume source must be given'],
    ['two sources, one of them unservable', vol({ name: 'a', emptyDir: {}, configMap: { name: 'x' } }), 'spec.volumes[0]: exactly one volume source must be given (may not specify more than 1 volume type), got emptyDir, configMap'],
    ['hostPath path required', vol({ name: 'a', hostPath: { path: '' } }), 'spec.volumes[0].hostPath.path: required value'],
    ['hostPath type enum', vol({ name: 'a', hostPath: { path: '/x', type: 'directory' } }), 'spec.volumes[0].hostPath.type: unsupported value "directory": supported values: "", "DirectoryOrCreate"'],
    ['hostPath with ..', vol({ name: 'a', hostPath: { path: '/x/../etc' } }), "spec.volumes[0].hostPath.path: must not contain '..'"],
    ['emptyDir medium', vol({ name: 'a', emptyDir: { medium: 'Disk' } }), 'spec.volumes[0].emptyDir.medium: unsupported value "Disk": supported values: "", "Memory"'],
    ['emptyDir huge pages', vol({ name: 'a', emptyDir: { medium: 'HugePages-2Mi' } }), 'spec.volumes[0].emptyDir.medium: unsupported value "HugePages-2Mi": huge pages are not served by this agent'],
    ['emptyDir sizeLimit not a quantity', vol({ name: 'a', emptyDir: { sizeLimit: 'lots' } }), 'spec.volumes[0].emptyDir.sizeLimit:'],
    ['downwardAPI defaultMode', vol({ name: 'd', downwardAPI: { defaultMode: 0o1000 } }), 'spec.volumes[0].downwardAPI.defaultMode: must be a number between 0 and 0777 (octal), both inclusive, got 512'],
    ['downwardAPI item mode', vol(item({ mode: -1 })), 'spec.volumes[0].downwardAPI.items[0].mode: must be a number between 0 and 0777 (octal), both inclusive, got -1'],
    ['downwardAPI path absolute', vol(item({ path: '/f' })), 'spec.volumes[0].downwardAPI.items[0].path: must be a relative path'],
    ['downwardAPI path with ..', vol(item({ path: 'a/../../f' })), "spec.volumes[0].downwardAPI.items[0].path: must not contain '..'"],
    ['downwardAPI path starting with ..', vol(item({ path: '..data' })), "spec.volumes[0].downwardAPI.items[0].path: must not start with '..'"],
    ['downwardAPI path required', vol(item({ path: '' })), 'spec.volumes[0].downwardAPI.items[0].path: required value'],
    ['downwardAPI fieldPath', vol(item({ fieldRef: { fieldPath: 'spec.nodeName' } })), 'spec.volumes[0].downwardAPI.items[0].fieldRef.fieldPath: unsupported value "spec.nodeName"'],
    ['downwardAPI no ref', vol(item({ fieldRef: undefined })), 'spec.volumes[0].downwardAPI.items[0]: one of fieldRef and resourceFieldRef is required'],
    ['downwardAPI both refs', vol(item({ resourceFieldRef: { containerName: 'c', resource: 'limits.cpu' } })), 'spec.volumes[0].downwardAPI.items[0]: fieldRef and resourceFieldRef can not be specified simultaneously'],
    ['resourceFieldRef containerName', vol(item({ fieldRef: undefined, resourceFieldRef: { resource: 'limits.cpu' } })), 'spec.volumes[0].downwardAPI.items[0].resourceFieldRef.containerName: required value'],
    ['resourceFieldRef resource', vol(item({ fieldRef: undefined, resourceFieldRef: { containerName: 'c', resource: 'limits.gpu' } })), 'spec.volumes[0].downwardAPI.items[0].resourceFieldRef.resource: unsupported value "limits.gpu"'],
    ['resourceFieldRef divisor', vol(item({ fieldRef: undefined, resourceFieldRef: { containerName: 'c', resource: 'limits.cpu', divisor: '0' } })), 'spec.volumes[0].downwardAPI.items[0].resourceFieldRef.divisor: must be greater than 0'],
  ])('%s', (_name, raw, want) => {
    expect(problems(raw).join('\n')).toContain(want);
  });
});

describe('volume mount rules', () => {
  it.each<[string, Obj, string]>([
    ['unknown volume', mounts([{ name: 'nope', mountPath: '/d' }]), 'spec.containers[0].volumeMounts[0].name: volume "nope" is not defined in spec.volumes'],
    ['mountPath unique', mounts([{ name: 'v', mountPath: '/d' }, { name: 'v', mountPath: '/d' }]), 'spec.containers[0].volumeMounts[1].mountPath: must be unique'],
    ['subPath and subPathExpr', mounts([{ name: 'v', mountPath: '/d', subPath: 'a', subPathExpr: '$(X)' }]), 'spec.containers[0].volumeMounts[0].subPathExpr: subPathExpr and subPath are mutually exclusive'],
    ['subPathExpr absolute', mounts([{ name: 'v', mountPath: '/d', subPathExpr: '/$(X)' }]), 'spec.containers[0].volumeMounts[0].subPathExpr: must be a relative path'],
    ['subPathExpr with ..', mounts([{ name: 'v', mountPath: '/d', subPathExpr: '$(X)/..' }]), "spec.containers[0].volumeMounts[0].subPathExpr: must not contain '..'"],
    ['subPath with ..', mounts([{ name: 'v', mountPath: '/d', subPath: 'a/../..' }]), "spec.containers[0].volumeMounts[0].subPath: must not contain '..'"],
  ])('%s', (_name, raw, want) => {
    expect(problems(raw).join('\n')).toContain(want);
  });
});

describe('valid volumes', () => {
  it.each<[string, Obj]>([
    ['every hostPath type', vol(...['', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice'].map((type, i) => ({ name: `h${i}`, hostPath: { path: `/h${i}`, type } })))],
    ['emptyDir in memory with a size', vol({ name: 'm', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } })],
    ['downwardAPI of every kind', vol({ name: 'd', downwardAPI: { defaultMode: 0o777, items: [
      { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
      { path: 'dir/one', fieldRef: { fieldPath: "metadata.annotations['a.io/b']" }, mode: 0 },
      { path: 'cpu', resourceFieldRef: { containerName: 'c', resource: 'limits.cpu', divisor: '1m' } },
    ] } })],
    ['a configMap volume (the pod waits for it; validation accepts it)', vol({ name: 'cfg', configMap: { name: 'x' } })],
    ['subPathExpr alone', mounts([{ name: 'v', mountPath: '/d', subPathExpr: 'logs/$(POD_NAME)' }])],
  ])('%s', (_name, raw) => {
    expect(problems(raw)).toEqual([]);
  });

  it('names the API’s other sources by key (decoding the API-backed ones in full), and drops keys the API does not define', () => {
    const d = decodePod(vol({ name: 'cfg', configMap: { name: 'x', items: [{ key: 'k', path: 'p' }] } }, { name: 's', secret: { secretName: 'y' }, notASource: {} }, { name: 'n', nfs: { server: 'h' } }));
    expect(d.ok && d.pod.spec.volumes).toEqual([
      { name: 'cfg', otherSources: ['configMap'], configMap: { name: 'x', items: [{ key: 'k', path: 'p' }], defaultMode: 0o644 } },
      { name: 's', otherSources: ['secret'], secret: { secretName: 'y', defaultMode: 0o644 } },
      { name: 'n', otherSources: ['nfs'] },
    ]);
  });
});
