// The basic routes (/healthz, /pods, /runningpods/, /configz, /spec/) served by
// the real node servers: HTTPS with a client certificate, and the read-only port.
import { readFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import { LivenessRegistry } from '../../../src/lifecycle/liveness.js';
import { LABEL_CONTAINER_NAME, LABEL_POD_NAME, LABEL_POD_NAMESPACE, LABEL_POD_UID } from '../../../src/runtime-view/labels.js';
import { basicRoutes } from '../../../src/server/routes/index.js';
import { StatusStore } from '../../../src/status/store.js';
import { staticPod } from '../../helpers/sync-pod.js';
import { testLogger } from '../../helpers/test-logger.js';
import { ask, makePki, startNodeServer, stubAuthenticator, stubAuthorize, type Pki } from './http-harness.js';

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});
let pki: Pki;
beforeAll(() => {
  pki = makePki();
});

const IMAGE = 'localhost/busybox:latest';

async function world() {
  const status = new StatusStore();
  const pod = staticPod({ name: 'main', image: IMAGE }, 'web');
  status.set(pod.metadata.uid, { pod, status: { phase: 'Running', conditions: [], containerStatuses: [] } });
  const runtime = new FakeRuntime({ images: [IMAGE] });
  const meta = { name: 'web-n', uid: 'uid-1', namespace: 'default', attempt: 0 };
  const sandbox = { metadata: meta, hostname: '', logDirectory: '/tmp', portMappings: [], labels: {}, annotations: {}, linux: { cgroupParent: '', sysctls: {}, securityContext: { namespaceOptions: { network: 'NODE' as const, pid: 'CONTAINER' as const, ipc: 'POD' as const }, privileged: false } } };
  const sb = await runtime.runPodSandbox(sandbox, '');
  const labels = { [LABEL_POD_UID]: 'uid-1', [LABEL_POD_NAME]: 'web-n', [LABEL_POD_NAMESPACE]: 'default', [LABEL_CONTAINER_NAME]: 'main' };
  const config = { metadata: { name: 'main', attempt: 0 }, image: IMAGE, command: [], args: [], workingDir: '', envs: [], mounts: [], labels, annotations: {}, logPath: 'main/0.log', stdin: false, stdinOnce: false, tty: false, linux: { resources: { cpuPeriod: 0, cpuQuota: 0, cpuShares: 2, memoryLimitInBytes: 0, oomScoreAdj: 0 }, securityContext: { privileged: false, readonlyRootfs: false, namespaceOptions: sandbox.linux.securityContext.namespaceOptions } } };
  await runtime.startContainer(await runtime.createContainer(sb, config, sandbox));
  const liveness = new LivenessRegistry();
  liveness.register('syncloop', () => true);
  const routes = basicRoutes({ status, runtime, liveness, configz: () => ({ agentconfig: { maxPods: 110 }, sources: { maxPods: 'default' } }), nodeName: 'n', log: testLogger() });
  return { status, runtime, liveness, routes, pod };
}

async function servers() {
  const w = await world();
  const main = await startNodeServer(
    { server: 'main', tls: { cert: pki.serverCert, key: pki.serverKey, ca: pki.ca, requestCert: true, rejectUnauthorized: false }, routes: w.routes, auth: { authenticator: stubAuthenticator(false), authorize: stubAuthorize() }, enableDebuggingHandlers: true },
    stops,
  );
  const ro = await startNodeServer({ server: 'readOnly', tls: undefined, routes: w.routes, auth: undefined, enableDebuggingHandlers: true }, stops);
  const get = (path: string) => ask(main.port, path, pki.ca, { cert: { cert: pki.clientCert, key: pki.clientKey } });
  const getRo = (path: string) => ask(ro.port, path, undefined);
  return { ...w, get, getRo };
}

describe('basic routes', () => {
  it('/healthz answers like the health port, on both servers', async () => {
    const s = await servers();
    expect(await s.get('/healthz')).toMatchObject({ status: 200, body: 'ok' });
    expect(await s.getRo('/healthz/syncloop')).toMatchObject({ status: 200, body: 'ok' });
    s.liveness.register('pleg', () => 'relist took 4m');
    expect(await s.get('/healthz')).toMatchObject({ status: 500, body: '[+]syncloop ok\n[-]pleg failed: reason withheld\nhealthz check failed\n' });
    expect(await s.getRo('/healthz?exclude=pleg&verbose')).toMatchObject({ status: 200, body: '[+]syncloop ok\n[+]pleg excluded: ok\nhealthz check passed\n' });
    expect((await s.get('/healthz/nope')).status).toBe(404);
  });

  it('/pods is the PodList of the status store', async () => {
    const s = await servers();
    for (const r of [await s.get('/pods'), await s.getRo('/pods')]) {
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe('application/json');
      const list = JSON.parse(r.body) as { kind: string; apiVersion: string; items: Array<{ metadata: { name: string }; status: { phase: string } }> };
      expect(list).toMatchObject({ kind: 'PodList', apiVersion: 'v1' });
      expect(list.items.map((p) => [p.metadata.name, p.status.phase])).toEqual([[s.pod.metadata.name, 'Running']]);
    }
  });

  it('/pods follows every change of the store (the answer is serialized once per change)', async () => {
    const s = await servers();
    const phases = async () => (JSON.parse((await s.getRo('/pods')).body) as { items: Array<{ status: { phase: string } }> }).items.map((p) => p.status.phase);
    expect(await phases()).toEqual(['Running']);
    expect(await phases()).toEqual(['Running']);
    s.status.set(s.pod.metadata.uid, { pod: s.pod, status: { phase: 'Succeeded', conditions: [], containerStatuses: [] } });
    expect(await phases()).toEqual(['Succeeded']);
    s.status.delete(s.pod.metadata.uid);
    expect(await phases()).toEqual([]);
  });

  it('/runningpods/ lists what the runtime runs; main port only', async () => {
    const s = await servers();
    const r = await s.get('/runningpods/');
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({
      kind: 'PodList',
      apiVersion: 'v1',
      metadata: {},
      items: [{ metadata: { name: 'web-n', namespace: 'default', uid: 'uid-1', creationTimestamp: null }, spec: { containers: [{ name: 'main', image: IMAGE, resources: {} }] }, status: {} }],
    });
    expect((await s.get('/runningpods/extra')).status).toBe(404);
    expect((await s.getRo('/runningpods/')).status).toBe(404);
    s.runtime.failNext('listPodSandbox', 'UNAVAILABLE');
    expect((await s.get('/runningpods/')).status).toBe(500);
  });

  it("/configz serves the effective config under agentconfig, with each field's source; main port only", async () => {
    const s = await servers();
    const r = await s.get('/configz');
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ agentconfig: { maxPods: 110 }, sources: { maxPods: 'default' } });
    expect((await s.getRo('/configz')).status).toBe(404);
  });

  it('/spec/ is the machine description from /proc and /sys', async () => {
    const s = await servers();
    for (const r of [await s.get('/spec/'), await s.getRo('/spec')]) {
      expect(r.status).toBe(200);
      const spec = JSON.parse(r.body) as Record<string, unknown>;
      expect(spec.num_cores).toBe(cpus().length);
      expect(spec.memory_capacity).toBeGreaterThan(0);
      expect(spec.boot_id).toBe((await readFile('/proc/sys/kernel/random/boot_id', 'utf8')).trim());
    }
    expect((await s.get('/spec/extra')).status).toBe(404);
  });
});
