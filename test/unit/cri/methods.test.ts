// Every CRI method's arguments and result survive the trip through protobuf
// bytes in both directions (client encode -> server decode, server encode ->
// client decode), and the conversions hold their edge cases.
import { beforeAll, describe, expect, it } from 'vitest';
import { CRI_METHODS, METHODS, type CriMethod, type CriMethodArgs, type CriResult } from '../../../src/cri/methods.js';
import { decodeMessage, encodeMessage, loadCriProto, type CriProto } from '../../../src/cri/proto.js';
import type { ContainerStatus, PodSandboxStatus } from '../../../src/cri/types.js';
import { fullContainerConfig, fullSandboxConfig, hostNetworkSandboxConfig, minimalContainerConfig } from './cri-fixtures.js';

let proto: CriProto;
beforeAll(async () => {
  proto = await loadCriProto();
});

function viaRequestBytes<M extends CriMethod>(m: M, args: CriMethodArgs[M]): CriMethodArgs[M] {
  const t = proto.type(`${METHODS[m].rpc}Request`);
  return METHODS[m].decodeRequest(decodeMessage(t, encodeMessage(t, METHODS[m].encodeRequest(args))));
}

function viaResponseBytes<M extends CriMethod>(m: M, result: CriResult<M>): CriResult<M> {
  const t = proto.type(`${METHODS[m].rpc}Response`);
  return METHODS[m].decodeResponse(decodeMessage(t, encodeMessage(t, METHODS[m].encodeResponse(result))));
}

const T0 = 1_700_000_000_123_456_789n; // beyond 2^53: must stay exact

const sandboxStatus: PodSandboxStatus = {
  id: 'f'.repeat(64),
  metadata: { name: 'web', uid: 'u1', namespace: 'ns', attempt: 4 },
  state: 'NOTREADY',
  createdAt: T0,
  labels: { a: 'b' },
  annotations: { c: 'd' },
  runtimeHandler: 'runc',
  ip: '10.88.0.7',
  additionalIps: ['fd00::7', '10.99.0.7'],
  namespaceOptions: { network: 'NODE', pid: 'POD', ipc: 'NODE' },
};

const containerStatus: ContainerStatus = {
  id: 'c'.repeat(64),
  metadata: { name: 'app', attempt: 9 },
  image: 'docker.io/library/busybox:latest',
  imageRef: 'docker.io/library/busybox@sha256:' + '1'.repeat(64),
  state: 'EXITED',
  createdAt: T0,
  startedAt: T0 + 1n,
  finishedAt: T0 + 2_000_000_001n,
  exitCode: -1,
  reason: 'OOMKilled',
  message: 'memory limit 64Mi',
  labels: { x: 'y' },
  annotations: { z: 'w' },
  logPath: '/var/log/pods/p/app/9.log',
};

// [method, args, result]
const SAMPLES: { [M in CriMethod]: Array<[CriMethodArgs[M], CriResult<M>]> } = {
  version: [[[], { version: '0.1.0', runtimeName: 'containerd', runtimeVersion: 'v1.6.20', runtimeApiVersion: 'v1' }]],
  status: [
    [[], [{ type: 'RuntimeReady', status: true, reason: '', message: '' }, { type: 'NetworkReady', status: false, reason: 'NetworkPluginNotReady', message: 'cni' }]],
    [[], []],
  ],
  runPodSandbox: [
    [[fullSandboxConfig(), 'runc'], 'sb1'],
    [[hostNetworkSandboxConfig(), ''], 'sb2'],
  ],
  stopPodSandbox: [[['sb1'], undefined]],
  removePodSandbox: [[['sb1'], undefined]],
  podSandboxStatus: [[['sb1'], sandboxStatus]],
  listPodSandbox: [
    [[undefined], []],
    [[{}], [sandboxStatus].map(({ ip: _i, additionalIps: _a, namespaceOptions: _n, ...s }) => s)],
    [[{ id: 'x', state: 'READY', labelSelector: { app: 'web', tier: '' } }], []],
    [[{ state: 'NOTREADY' }], []],
  ],
  createContainer: [
    [['sb1', fullContainerConfig(), fullSandboxConfig()], 'c1'],
    [['sb1', minimalContainerConfig(), hostNetworkSandboxConfig()], 'c2'],
  ],
  startContainer: [[['c1'], undefined]],
  stopContainer: [
    [['c1', 30], undefined],
    [['c1', 0], undefined],
  ],
  removeContainer: [[['c1'], undefined]],
  listContainers: [
    [[undefined], []],
    [[{ id: 'c1', podSandboxId: 'sb1', state: 'RUNNING', labelSelector: { a: 'b' } }], [{ ...containerStatusAsContainer(), podSandboxId: 'sb1' }]],
    [[{ state: 'CREATED' }], []],
  ],
  containerStatus: [[['c1'], containerStatus]],
  execSync: [
    [['c1', ['sh', '-c', 'exit 3'], 1], { stdout: Buffer.from('out'), stderr: Buffer.from('err\n'), exitCode: 3 }],
    [['c1', [], 0], { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), exitCode: 0 }],
  ],
  reopenContainerLog: [[['c1'], undefined]],
  pullImage: [
    [['busybox', undefined, undefined], 'sha256:' + 'a'.repeat(64)],
    [['reg:5000/x:1', { username: 'u', password: 'p', auth: 'dTpw', serverAddress: 'https://reg:5000', identityToken: 'id', registryToken: 'rt' }, fullSandboxConfig()], 'sha256:b'],
    [['x', {}, undefined], 'sha256:c'],
  ],
  imageStatus: [
    [['busybox'], { id: 'sha256:1', repoTags: ['docker.io/library/busybox:latest'], repoDigests: ['docker.io/library/busybox@sha256:2'], size: 2 ** 40 + 3, username: '', pinned: true }],
    [['app:1'], { id: 'sha256:3', repoTags: ['app:1'], repoDigests: [], size: 1, uid: 0, username: '', pinned: false }],
    [['app:2'], { id: 'sha256:4', repoTags: ['app:2'], repoDigests: [], size: 1, uid: 1000, username: '', pinned: false }],
    [['app:3'], { id: 'sha256:5', repoTags: ['app:3'], repoDigests: [], size: 1, username: 'nobody', pinned: false }],
    [['missing'], undefined],
  ],
  listImages: [[[], [{ id: 'sha256:1', repoTags: [], repoDigests: [], size: 0, username: '', pinned: false }]]],
  removeImage: [[['sha256:1'], undefined]],
  imageFsInfo: [[[], [{ mountpoint: '/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs', usedBytes: 2 ** 41, inodesUsed: 12345 }]]],
  // issue 18 F: stats
  listContainerStats: [
    [[undefined], []],
    [[{ id: 'c1', podSandboxId: 's1', labelSelector: { a: 'b' } }], [
      { id: 'c1', metadata: { name: 'app', attempt: 2 }, labels: { a: 'b' }, annotations: {}, cpu: { timestamp: T0, usageCoreNanoSeconds: 12_345_678_901 }, memory: { timestamp: T0, workingSetBytes: 0, usageBytes: 4096, rssBytes: 1024, pageFaults: 7, majorPageFaults: 1 }, writableLayer: { mountpoint: '/rootfs', usedBytes: 8192, inodesUsed: 3 } },
      { id: 'c2', metadata: { name: 'side', attempt: 0 }, labels: {}, annotations: { z: 'w' } },
    ]],
  ],
  listPodSandboxStats: [
    [[{ id: 's1' }], [{
      id: 's1', metadata: { name: 'web', uid: 'u1', namespace: 'ns', attempt: 0 }, labels: {}, annotations: {},
      cpu: { timestamp: T0, usageCoreNanoSeconds: 5, usageNanoCores: 6 }, memory: { timestamp: T0, workingSetBytes: 1 },
      network: { timestamp: T0, defaultInterface: { name: 'eth0', rxBytes: 1, rxErrors: 0, txBytes: 2, txErrors: 0 }, interfaces: [{ name: 'eth1', rxBytes: 3 }] },
      processCount: 4,
      containers: [{ id: 'c1', metadata: { name: 'app', attempt: 0 }, labels: {}, annotations: {} }],
    }]],
  ],
  // issue 18 D: streaming
  exec: [[[{ containerId: 'c1', cmd: ['sh', '-c', 'echo hi'], tty: false, stdin: true, stdout: true, stderr: true }], 'http://127.0.0.1:4000/exec/abc']],
  attach: [[[{ containerId: 'c1', stdin: false, tty: true, stdout: true, stderr: false }], 'http://127.0.0.1:4000/attach/def']],
  portForward: [[[{ podSandboxId: 's1', port: [80, 65535] }], 'http://127.0.0.1:4000/portforward/ghi'], [[{ podSandboxId: 's1', port: [] }], '']],
};

function containerStatusAsContainer() {
  const { startedAt: _s, finishedAt: _f, exitCode: _e, reason: _r, message: _m, logPath: _l, ...c } = containerStatus;
  return c;
}

describe('CRI method table', () => {
  it('covers every Runtime method, each with request and response messages in the proto', () => {
    expect(CRI_METHODS.sort()).toEqual(Object.keys(SAMPLES).sort());
    for (const m of CRI_METHODS) {
      const { service, rpc } = METHODS[m];
      const svc = service === 'RuntimeService' ? proto.runtimeService : proto.imageService;
      const method = svc.methods[rpc];
      expect(method, `${service}/${rpc}`).toBeDefined();
      expect(method?.requestType).toBe(`${rpc}Request`);
      expect(method?.responseType).toBe(`${rpc}Response`);
    }
  });

  for (const m of Object.keys(SAMPLES) as CriMethod[]) {
    it(`${m}: arguments and result round-trip through protobuf bytes`, () => {
      for (const [args, result] of SAMPLES[m] as Array<[CriMethodArgs[CriMethod], CriResult<CriMethod>]>) {
        expect(viaRequestBytes(m, args as never)).toEqual(args);
        expect(viaResponseBytes(m, result as never)).toEqual(result);
      }
    });
  }

  it('sends the v1 version string in the handshake', () => {
    expect(METHODS.version.encodeRequest([])).toEqual({ version: 'v1' });
  });

  it('keeps a zero run_as_user present and an absent one absent', () => {
    const c = minimalContainerConfig();
    c.linux.securityContext.runAsUser = 0;
    const [, back] = viaRequestBytes('createContainer', ['sb', c, fullSandboxConfig()]);
    expect(back.linux.securityContext.runAsUser).toBe(0);
    expect(back.linux.securityContext).not.toHaveProperty('runAsGroup');
  });

  it('gives a registry address without a scheme https:// (containerd rejects a bare host:port)', () => {
    const send = (serverAddress: string) => viaRequestBytes('pullImage', ['x', { serverAddress }, undefined])[1]?.serverAddress;
    expect(send('127.0.0.1:5001')).toBe('https://127.0.0.1:5001');
    expect(send('registry.example')).toBe('https://registry.example');
    expect(send('http://127.0.0.1:5001')).toBe('http://127.0.0.1:5001');
    expect(send('')).toBeUndefined();
  });

  it('rejects a non-finite number where int64 is sent', () => {
    const c = fullContainerConfig();
    c.linux.resources.memoryLimitInBytes = Number.NaN;
    expect(() => METHODS.createContainer.encodeRequest(['sb', c, fullSandboxConfig()])).toThrow(/memoryLimitInBytes is not a finite number/);
  });
});

describe('decoding what a runtime sends', () => {
  it('reads states and enum values newer than runtime.v1 conservatively', () => {
    const t = proto.type('ContainerStatusResponse');
    const bytes = encodeMessage(t, { status: { id: 'c', state: 7, metadata: { name: 'a', attempt: 1 } } });
    expect(METHODS.containerStatus.decodeResponse(decodeMessage(t, bytes)).state).toBe('UNKNOWN');
    const ts = proto.type('PodSandboxStatusResponse');
    const sb = METHODS.podSandboxStatus.decodeResponse(decodeMessage(ts, encodeMessage(ts, { status: { id: 's', state: 9, linux: { namespaces: { options: { network: 8 } } } } })));
    expect(sb.state).toBe('NOTREADY');
    expect(sb.namespaceOptions).toEqual({ network: 'POD', pid: 'POD', ipc: 'POD' });
  });

  it('fills absent sub-messages with defaults', () => {
    const ts = proto.type('PodSandboxStatusResponse');
    const sb = METHODS.podSandboxStatus.decodeResponse(decodeMessage(ts, encodeMessage(ts, { status: { id: 's' } })));
    expect(sb).toEqual({
      id: 's', metadata: { name: '', uid: '', namespace: '', attempt: 0 }, state: 'READY', createdAt: 0n, labels: {}, annotations: {},
      runtimeHandler: '', ip: '', additionalIps: [], namespaceOptions: { network: 'POD', pid: 'POD', ipc: 'POD' },
    });
    const ti = proto.type('ImageStatusResponse');
    expect(METHODS.imageStatus.decodeResponse(decodeMessage(ti, encodeMessage(ti, {})))).toBeUndefined();
  });

  it('skips fields a newer runtime adds', () => {
    const t = proto.type('VersionResponse');
    const known = encodeMessage(t, { version: '0.1.0', runtimeName: 'containerd', runtimeVersion: '2.0', runtimeApiVersion: 'v1' });
    // field 42, length-delimited "hello", then field 43 varint 7
    const extra = Buffer.concat([known, Buffer.from([0xd2, 0x02, 5, ...Buffer.from('hello'), 0xd8, 0x02, 7])]);
    expect(METHODS.version.decodeResponse(decodeMessage(t, extra))).toEqual({ version: '0.1.0', runtimeName: 'containerd', runtimeVersion: '2.0', runtimeApiVersion: 'v1' });
  });

  it('puts fields at the reference field numbers (spot check on raw bytes)', () => {
    // StopContainerRequest: container_id = 1 (string), timeout = 2 (int64)
    expect([...encodeMessage(proto.type('StopContainerRequest'), { containerId: 'a', timeout: 300n })]).toEqual([0x0a, 1, 0x61, 0x10, 0xac, 0x02]);
    // ContainerStatus.log_path = 15, exit_code = 7
    expect([...encodeMessage(proto.type('ContainerStatus'), { exitCode: 1, logPath: 'l' })]).toEqual([0x38, 1, 0x7a, 1, 0x6c]);
  });
});
