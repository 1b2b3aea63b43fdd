// What node operators run: `kubectl get --raw /pods` against the main port
// with a kubeconfig holding the test CA and a client certificate.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import { LivenessRegistry } from '../../../src/lifecycle/liveness.js';
import { basicRoutes } from '../../../src/server/routes/index.js';
import { StatusStore } from '../../../src/status/store.js';
import { staticPod } from '../../helpers/sync-pod.js';
import { testLogger } from '../../helpers/test-logger.js';
import { makePki, startNodeServer, stubAuthenticator, stubAuthorize, type AuthzCall } from './http-harness.js';

const run = promisify(execFile);
const stops: Array<() => Promise<void>> = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const b64 = (pem: string): string => Buffer.from(pem).toString('base64');

describe('kubectl against the main port', () => {
  it('get --raw /pods with a client certificate returns the PodList', async () => {
    const pki = makePki();
    const status = new StatusStore();
    const pod = staticPod({ name: 'main', image: 'localhost/busybox:latest' }, 'web');
    status.set(pod.metadata.uid, { pod, status: { phase: 'Running', conditions: [], containerStatuses: [] } });
    const routes = basicRoutes({ status, runtime: new FakeRuntime(), liveness: new LivenessRegistry(), configz: () => ({ agentconfig: {} }), nodeName: 'n', log: testLogger() });
    const calls: AuthzCall[] = [];
    const s = await startNodeServer(
      { server: 'main', tls: { cert: pki.serverCert, key: pki.serverKey, ca: pki.ca, requestCert: true, rejectUnauthorized: false }, routes, auth: { authenticator: stubAuthenticator(false), authorize: stubAuthorize(calls) }, enableDebuggingHandlers: true },
      stops,
    );
    const dir = await mkdtemp(join(tmpdir(), 'agent-kubectl-'));
    dirs.push(dir);
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'node', cluster: { server: `https://127.0.0.1:${s.port}`, 'certificate-authority-data': b64(pki.ca) } }],
        users: [{ name: 'admin', user: { 'client-certificate-data': b64(pki.clientCert), 'client-key-data': b64(pki.clientKey) } }],
        contexts: [{ name: 'node', context: { cluster: 'node', user: 'admin' } }],
        'current-context': 'node',
      }),
    );
    const { stdout } = await run('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), 'get', '--raw', '/pods'], { env: { ...process.env, HOME: dir }, timeout: 30_000 });
    const list = JSON.parse(stdout) as { kind: string; apiVersion: string; items: Array<{ metadata: { name: string } }> };
    expect(list).toMatchObject({ kind: 'PodList', apiVersion: 'v1' });
    expect(list.items.map((p) => p.metadata.name)).toEqual([pod.metadata.name]);
    expect(calls.map((c) => [c.user.name, c.method, c.path])).toEqual([['admin', 'GET', '/pods']]);
  });
});
