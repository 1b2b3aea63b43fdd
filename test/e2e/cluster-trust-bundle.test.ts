// ClusterTrustBundle projections end to end (issue 19 item 8): the built
// agent (gate ClusterTrustBundle on) joined as system:node:e2e-node to the
// built platform-apiserver (its certificates.platform.io/v1alpha1 API served
// behind the same gate) over a private etcd, the pod on the private
// containerd. A projected volume holds one bundle by name and, by signer name
// plus label selector, the certificates of several bundles merged,
// deduplicated and sorted (cluster-api-conventions §2.3 rule 4). An update of
// a bundle reaches the file within the sync period through the atomic
// writer's `..data` swap: a reader looping in the container never sees
// anything but the old and the new content.
import { createHash } from 'node:crypto';
import { readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerHandle } from '../conformance/helpers/server.js';
import { startEtcd, type TestEtcd } from '../helpers/etcd.js';
import { generateKeyPair, issueCertificate } from '../../src/pki/x509.js';
import { container, NODE, podContainers, waitFor } from './helpers/agent-node.js';
import { getJson, nodeConfig, createDefaultServiceAccount, runningInApi } from './helpers/cluster.js';
import { skipWithoutRuntime, useRuntime } from './helpers/e2e-env.js';

const skip = skipWithoutRuntime('ClusterTrustBundle volumes');

const SIGNER = 'e2e.platform.io/signer';
const CTB_PATH = '/apis/certificates.platform.io/v1alpha1/clustertrustbundles';

/** A self-signed CA certificate (PEM, 64-column lines): what a trust bundle may hold. */
function caPem(cn: string): string {
  const k = generateKeyPair();
  const now = Date.now();
  return issueCertificate({ subject: { commonName: cn }, publicKey: k.publicKey, selfKey: k.privateKey, notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000), isCA: true });
}

/** The base64 DER of a one-certificate PEM. */
const body = (pem: string): string => pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');

/** What the agent writes for a set of certificates: each once, ordered by its base64 DER, as 64-column PEM blocks. */
const merged = (pems: readonly string[]): string => [...new Set(pems)].sort((a, b) => (body(a) < body(b) ? -1 : body(a) > body(b) ? 1 : 0)).join('');

const md5 = (s: string): string => createHash('md5').update(s).digest('hex');

function bundle(name: string, pems: readonly string[], signerName?: string, labels?: Record<string, string>): Record<string, unknown> {
  return {
    apiVersion: 'certificates.platform.io/v1alpha1',
    kind: 'ClusterTrustBundle',
    metadata: { name, ...(labels ? { labels } : {}) },
    spec: { ...(signerName ? { signerName } : {}), trustBundle: pems.join('') },
  };
}

describe.skipIf(skip)('ClusterTrustBundle volumes on a real containerd, platform-apiserver over etcd', () => {
  const env = useRuntime();
  let etcd: TestEtcd;
  let srv: ServerHandle;
  beforeAll(async () => {
    etcd = await startEtcd();
    srv = await startServer({ backend: 'etcd', etcdEndpoint: etcd.endpoint, featureGates: 'ClusterTrustBundle=true', extraArgs: ['--controllers=*'] });
    await createDefaultServiceAccount(srv);
  }, 90_000);
  afterAll(async () => {
    await srv?.stop();
    await etcd?.stop();
  }, 60_000);

  it('projects a bundle by name and the merged bundles of a signer, and follows an update atomically', async () => {
    const api = srv.admin;
    const [ca1, ca2, ca3, ca4, ca5, ca6] = ['one', 'two', 'three', 'four', 'five', 'six'].map((n) => caPem(`e2e-ca-${n}`)) as [string, string, string, string, string, string];
    const create = async (o: Record<string, unknown>): Promise<void> => {
      const r = await api.post(CTB_PATH, o);
      expect(r.status, r.text()).toBe(201);
    };
    await create(bundle('e2e-plain', [ca1]));
    // Two bundles of the signer the selector picks (sharing ca3), one of the signer it does not, one of another signer.
    await create(bundle('e2e.platform.io:signer:a', [ca2, ca3], SIGNER, { team: 'blue' }));
    await create(bundle('e2e.platform.io:signer:b', [ca3, ca4], SIGNER, { team: 'blue' }));
    await create(bundle('e2e.platform.io:signer:c', [ca5], SIGNER, { team: 'red' }));
    await create(bundle('e2e.platform.io:other:d', [ca6], 'e2e.platform.io/other', { team: 'blue' }));

    const node = env.newNode();
    const agent = await node.start([`--platformconfig=${nodeConfig(node.dir, srv)}`, '--feature-gates=ClusterTrustBundle=true']);
    // The reader appends the file's hash to /tmp/seen whenever it changes: a torn or empty read would show up as a third hash.
    const reader = `trap 'exit 0' TERM; prev=; while true; do h=$(md5sum < /ctb/signer.pem | cut -d' ' -f1); if [ "$h" != "$prev" ]; then echo "$h" >> /tmp/seen; prev=$h; fi; sleep 0.05 & wait; done`;
    const body0 = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'ctb-reader', namespace: 'default' },
      spec: {
        nodeName: NODE,
        hostNetwork: true,
        terminationGracePeriodSeconds: 2,
        containers: [{ ...container('main', ['sh', '-c', reader]), volumeMounts: [{ name: 'anchors', mountPath: '/ctb', readOnly: true }] }],
        volumes: [
          {
            name: 'anchors',
            projected: {
              sources: [
                { clusterTrustBundle: { name: 'e2e-plain', path: 'plain.pem' } },
                { clusterTrustBundle: { signerName: SIGNER, labelSelector: { matchLabels: { team: 'blue' } }, path: 'signer.pem' } },
              ],
            },
          },
        ],
      },
    };
    const created = await api.post('/api/v1/namespaces/default/pods', body0);
    expect(created.status, created.text()).toBe(201);
    const podPath = '/api/v1/namespaces/default/pods/ctb-reader';
    const running = await runningInApi(api, podPath, agent, 'ctb-reader Running in the API');
    const [c] = await podContainers(env.cri, running.metadata.uid);
    expect(c?.state).toBe('RUNNING');
    const sh = async (cmd: string): Promise<string> => (await env.cri.execSync(c!.id, ['sh', '-c', cmd], 10)).stdout.toString();

    expect(await sh('cat /ctb/plain.pem')).toBe(ca1);
    const before = merged([ca2, ca3, ca4]);
    expect(await sh('cat /ctb/signer.pem')).toBe(before);
    // Each file is a link into the data directory the writer swaps as a whole.
    expect(await sh('readlink /ctb/signer.pem; readlink /ctb/..data')).toMatch(/^\.\.data\/signer\.pem\n\.\.\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d\.\w+\n$/);
    const volume = join(node.root, 'pods', running.metadata.uid, 'volumes', 'platform.io~projected', 'anchors');
    const dataBefore = await readlink(join(volume, '..data'));

    // Bundle b drops ca4 and takes ca6 (ca6 is also in another signer's bundle: only b's copy is selected).
    const old = (await getJson(api, `${CTB_PATH}/e2e.platform.io:signer:b`))!;
    const updated = await api.put(`${CTB_PATH}/e2e.platform.io:signer:b`, { ...bundle('e2e.platform.io:signer:b', [ca6, ca3], SIGNER, { team: 'blue' }), metadata: { ...old.metadata } });
    expect(updated.status, updated.text()).toBe(200);
    const after = merged([ca2, ca3, ca6]);
    await waitFor('the bundle update in the file', 30_000, async () => (await sh('cat /ctb/signer.pem')) === after || undefined, agent, 250);
    expect(await readlink(join(volume, '..data'))).not.toBe(dataBefore);
    expect(await sh('cat /ctb/plain.pem')).toBe(ca1);
    // The reader saw the old content, then the new one, and nothing in between.
    await waitFor('the reader saw the new content', 10_000, async () => (await sh('cat /tmp/seen')).includes(md5(after)) || undefined, agent);
    expect((await sh('cat /tmp/seen')).trim().split('\n')).toEqual([md5(before), md5(after)]);

    // A bundle the selector matches appears, another goes: the set follows both.
    await create(bundle('e2e.platform.io:signer:e', [ca4], SIGNER, { team: 'blue' }));
    expect((await api.delete(`${CTB_PATH}/e2e.platform.io:signer:a`)).status).toBe(200);
    const last = merged([ca3, ca4, ca6]);
    await waitFor('the new and the deleted bundle in the file', 30_000, async () => (await sh('cat /ctb/signer.pem')) === last || undefined, agent, 250);

    expect((await api.delete(podPath)).status).toBe(200);
    await waitFor('ctb-reader gone', 30_000, async () => (await api.get(podPath)).status === 404 || undefined, agent);
  }, 180_000);

  it('holds a pod whose bundle is missing with FailedMount (an optional source matching nothing is an empty file) and starts it once the bundle exists', async () => {
    const api = srv.admin;
    const node = env.newNode();
    const agent = await node.start([`--platformconfig=${nodeConfig(node.dir, srv)}`, '--feature-gates=ClusterTrustBundle=true']);
    const pemLate = caPem('e2e-ca-late');
    const podBody = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'ctb-waiting', namespace: 'default' },
      spec: {
        nodeName: NODE,
        hostNetwork: true,
        terminationGracePeriodSeconds: 2,
        containers: [{ ...container('main'), volumeMounts: [{ name: 'anchors', mountPath: '/ctb', readOnly: true }] }],
        volumes: [
          {
            name: 'anchors',
            projected: {
              sources: [
                { clusterTrustBundle: { name: 'e2e-late', path: 'late.pem' } },
                { clusterTrustBundle: { signerName: 'e2e.platform.io/nobody', labelSelector: {}, path: 'none.pem', optional: true } },
              ],
            },
          },
        ],
      },
    };
    expect((await api.post('/api/v1/namespaces/default/pods', podBody)).status).toBe(201);
    const podPath = '/api/v1/namespaces/default/pods/ctb-waiting';
    const failed = await waitFor('a FailedMount event', 30_000, async () => {
      const r = await api.get('/api/v1/namespaces/default/events', { query: { fieldSelector: 'involvedObject.name=ctb-waiting' } });
      return ((r.json() as { items: Array<{ reason: string; message: string; type: string }> }).items ?? []).find((e) => e.reason === 'FailedMount');
    }, agent);
    expect(failed.type).toBe('Warning');
    expect(failed.message).toContain('e2e-late');
    expect(failed.message).not.toContain('nobody');
    expect((await getJson(api, podPath))?.status?.['phase']).toBe('Pending');

    expect((await api.post(CTB_PATH, bundle('e2e-late', [pemLate]))).status).toBe(201);
    const up = await waitFor('ctb-waiting Running', 60_000, async () => {
      const p = await getJson(api, podPath);
      return p?.status?.['phase'] === 'Running' ? p : undefined;
    }, agent);
    const [c] = await podContainers(env.cri, up.metadata.uid);
    const sh = async (cmd: string): Promise<string> => (await env.cri.execSync(c!.id, ['sh', '-c', cmd], 10)).stdout.toString();
    // An optional source that selects nothing gives an empty file (the kubelet writes the empty payload).
    expect(await sh('cat /ctb/late.pem; ls /ctb; wc -c < /ctb/none.pem')).toBe(`${pemLate}late.pem\nnone.pem\n0\n`);
    expect((await api.delete(podPath)).status).toBe(200);
    await waitFor('ctb-waiting gone', 30_000, async () => (await api.get(podPath)).status === 404 || undefined, agent);
  }, 120_000);
});
