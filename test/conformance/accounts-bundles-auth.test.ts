// Conformance, spec §2.2 (ServiceAccount), §2.3 (ClusterTrustBundle), §5
// (authentication, authorization) and the RBAC and node-authorizer
// rules, against both storage backends.
import { beforeAll, expect, it } from 'vitest';
import { describeBackends } from './helpers/backends.js';
import type { ApiClient, Json } from './helpers/api-client.js';
import { selfSigned } from './helpers/certs.js';
import { CORE, CTB, makeNamespace, ns, pod, sa } from './helpers/objects.js';

const RBAC = '/apis/rbac.authorization.platform.io/v1';
const RBAC_GROUP = 'rbac.authorization.platform.io';

async function grantCluster(c: ApiClient, user: string, name: string, rules: Json[]): Promise<void> {
  expect((await c.post(`${RBAC}/clusterroles`, { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: { name }, rules })).status).toBe(201);
  const b = await c.post(`${RBAC}/clusterrolebindings`, { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRoleBinding', metadata: { name }, subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: user }], roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name } });
  expect(b.status, b.text()).toBe(201);
}

const bundle = (name: string, trustBundle: string, signerName?: string): Json => ({
  apiVersion: 'certificates.platform.io/v1alpha1',
  kind: 'ClusterTrustBundle',
  metadata: { name },
  spec: { trustBundle, ...(signerName === undefined ? {} : { signerName }) },
});

describeBackends('§2.2 §2.3 §5: service accounts, trust bundles, authentication and authorization', { featureGates: 'ClusterTrustBundle=true' }, (srv) => {
  let admin: ApiClient;
  let caA: string;
  let caB: string;
  beforeAll(() => {
    admin = srv().admin;
    caA = selfSigned('root-a', true);
    caB = selfSigned('root-b', true);
  });

  it('§5 rule 1: every operation answers 401 without credentials or with an unknown token', async () => {
    const n = await makeNamespace(admin);
    for (const client of [admin.as(undefined), admin.as('no-such-token')]) {
      for (const [method, path] of [['GET', `${ns(n)}/serviceaccounts/default`], ['GET', `${ns(n)}/serviceaccounts`], ['POST', `${ns(n)}/serviceaccounts`], ['DELETE', `${ns(n)}/serviceaccounts/default`], ['GET', `${CTB}`], ['GET', '/api/v1']] as const) {
        const r = await client.request(method, path, method === 'POST' ? { body: sa('x') } : {});
        expect(r.status, `${method} ${path}`).toBe(401);
        expect(r.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
      }
      const w = await client.watch(`${ns(n)}/serviceaccounts`);
      w.close();
      expect(w.status).toBe(401);
    }
  });

  it('§5 rule 2, RBAC: access to a namespaced type is authorized per namespace (a Role and RoleBinding in one namespace)', async () => {
    const [a, b] = [await makeNamespace(admin), await makeNamespace(admin)];
    await admin.post(`${RBAC}/namespaces/${a}/roles`, { apiVersion: `${RBAC_GROUP}/v1`, kind: 'Role', metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }] });
    const rb = await admin.post(`${RBAC}/namespaces/${a}/rolebindings`, { apiVersion: `${RBAC_GROUP}/v1`, kind: 'RoleBinding', metadata: { name: 'bob-reads' }, subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: 'bob' }], roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: 'reader' } });
    expect(rb.status, rb.text()).toBe(201);
    const bob = srv().user('bob');
    expect((await bob.get(`${ns(a)}/configmaps`)).status).toBe(200);
    const other = await bob.get(`${ns(b)}/configmaps`);
    expect(other.status).toBe(403);
    expect(other.json().message).toBe(`configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "${b}"`);
    expect((await bob.post(`${ns(a)}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } })).status).toBe(403);
    // §4.11 rule 4, §5 rule 5: a dry run needs the same permission.
    expect((await bob.post(`${ns(a)}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, { query: { dryRun: 'All' } })).status).toBe(403);
    const sar = await admin.post('/apis/authorization.platform.io/v1/subjectaccessreviews', { apiVersion: 'authorization.platform.io/v1', kind: 'SubjectAccessReview', spec: { user: 'bob', resourceAttributes: { verb: 'list', resource: 'configmaps', namespace: a } } });
    expect(sar.status).toBe(201);
    expect(sar.json().status.allowed).toBe(true);
  });

  it('§2.2: ServiceAccount fields round-trip; a pod without serviceAccountName runs as "default", which every namespace has', async () => {
    const n = await makeNamespace(admin);
    const d = await admin.get(`${ns(n)}/serviceaccounts/default`);
    expect(d.status).toBe(200);
    const p = await admin.post(`${ns(n)}/pods`, pod('p'));
    expect(p.status, p.text()).toBe(201);
    expect(p.json().spec.serviceAccountName).toBe('default');
  });

  it('§2.2 rule 1: with platform.io/enforce-mountable-secrets "true" a pod may use only the secrets the account lists', async () => {
    const n = await makeNamespace(admin);
    await admin.post(`${ns(n)}/serviceaccounts`, sa('strict', { metadata: { annotations: { 'platform.io/enforce-mountable-secrets': 'true' } }, secrets: [{ name: 'allowed' }] }));
    await admin.post(`${ns(n)}/serviceaccounts`, sa('loose', { secrets: [{ name: 'allowed' }] }));
    const vol = (secretName: string): Json => ({ volumes: [{ name: 'v', secret: { secretName } }] });
    expect((await admin.post(`${ns(n)}/pods`, pod('ok', { serviceAccountName: 'strict', ...vol('allowed') }))).status).toBe(201);
    const refused = await admin.post(`${ns(n)}/pods`, pod('no', { serviceAccountName: 'strict', ...vol('other') }));
    expect(refused.status).toBe(403);
    expect(refused.json().message).toContain('other');
    const env = await admin.post(`${ns(n)}/pods`, pod('env', { serviceAccountName: 'strict', containers: [{ name: 'c', image: 'busybox', env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'other', key: 'k' } } }] }] }));
    expect(env.status).toBe(403);
    expect((await admin.post(`${ns(n)}/pods`, pod('free', { serviceAccountName: 'loose', ...vol('other') }))).status).toBe(201);
  });

  it('§5 rule 6: a token requested for a service account (bound to a pod) authenticates as that account until the pod is gone', async () => {
    const n = await makeNamespace(admin);
    await admin.post(`${ns(n)}/serviceaccounts`, sa('robot'));
    const p = (await admin.post(`${ns(n)}/pods`, pod('holder', { serviceAccountName: 'robot' }))).json();
    const tr = await admin.post(`${ns(n)}/serviceaccounts/robot/token`, {
      apiVersion: 'authentication.platform.io/v1',
      kind: 'TokenRequest',
      // No audiences: the server's own API audiences, so the token is good for this API.
      spec: { expirationSeconds: 3600, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'holder', uid: p.metadata.uid } },
    });
    expect(tr.status, tr.text()).toBe(201);
    const { token, expirationTimestamp } = tr.json().status;
    expect(token.split('.')).toHaveLength(3);
    expect(Date.parse(expirationTimestamp)).toBeGreaterThan(Date.now() + 3500_000);
    const review = await admin.post('/apis/authentication.platform.io/v1/tokenreviews', { apiVersion: 'authentication.platform.io/v1', kind: 'TokenReview', spec: { token } });
    expect(review.json().status).toMatchObject({ authenticated: true, user: { username: `system:serviceaccount:${n}:robot`, groups: expect.arrayContaining(['system:serviceaccounts', `system:serviceaccounts:${n}`, 'system:authenticated']) } });
    const asRobot = admin.as(token);
    expect((await asRobot.get(`${ns(n)}/configmaps`)).status).toBe(403);
    await admin.delete(`${ns(n)}/pods/holder`, { query: { gracePeriodSeconds: 0 } });
    expect((await asRobot.get(`${ns(n)}/configmaps`)).status).toBe(401);
    const tooShort = await admin.post(`${ns(n)}/serviceaccounts/robot/token`, { apiVersion: 'authentication.platform.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 60 } });
    expect(tooShort.status).toBe(422);
  });

  it('§2.3 rules 1-3, 5-6: bundle validation on create', async () => {
    const cases: Array<[string, Json, string]> = [
      ['non-CA', bundle('non-ca', selfSigned('leaf', false)), 'entry 0 does not have the CA bit set'],
      ['duplicate', bundle('dup', caA + caA), 'duplicate trust anchor'],
      ['headers', bundle('hdr', caA.replace('-----BEGIN CERTIFICATE-----\n', '-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n\n')), 'has PEM block headers'],
      ['block type', bundle('type', caA.replaceAll('CERTIFICATE', 'PUBLIC KEY')), 'bad block type'],
      ['not X.509', bundle('garbage', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'), 'does not parse as X.509'],
      ['empty', bundle('empty', 'no pem here'), 'at least one trust anchor must be provided'],
      ['signer prefix', bundle('wrong-name', caA, 'example.com/signer'), 'must be named with prefix example.com:signer:'],
      ['colon without signer', bundle('example.com:signer:x', caA), 'without signer name must not have ":" in its name'],
    ];
    for (const [what, obj, message] of cases) {
      const r = await admin.post(CTB, obj);
      expect(r.status, `${what}: ${r.text()}`).toBe(422);
      expect(r.json().message, what).toContain(message);
    }
    const missing = await admin.post(CTB, { apiVersion: 'certificates.platform.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name: 'nospec' } });
    expect(missing.status).toBe(422);
    const ok = await admin.post(CTB, bundle('two-roots', caA + '\n' + caB));
    expect(ok.status, ok.text()).toBe(201);
    const signed = await admin.post(CTB, bundle('example.com:signer:one', caA, 'example.com/signer'));
    expect(signed.status, signed.text()).toBe(201);
    const changed = await admin.put(`${CTB}/example.com:signer:one`, { ...signed.json(), spec: { ...signed.json().spec, signerName: 'example.com/other' } });
    expect(changed.status).toBe(422);
    expect(changed.json().message).toContain('field is immutable');
  });

  it('§2.3 rule 7: list and watch filter with spec.signerName', async () => {
    await admin.post(CTB, bundle('example.org:filter:a', caB, 'example.org/filter'));
    const list = (await admin.get(CTB, { query: { fieldSelector: 'spec.signerName=example.org/filter' } })).json();
    expect(list.items.map((i: Json) => i.metadata.name)).toEqual(['example.org:filter:a']);
  });

  it('§2.3 rule 8, §5 rule 3: any authenticated user reads bundles; writing needs permission', async () => {
    const alice = srv().user('alice');
    expect((await alice.get(CTB)).status).toBe(200);
    expect((await alice.get(`${CTB}/two-roots`)).status).toBe(200);
    expect((await alice.post(CTB, bundle('by-alice', caA))).status).toBe(403);
  });

  it('§5 rule 4: a bundle with a signerName also needs "attest" on signers/<signerName>, through RBAC', async () => {
    const bob = srv().user('bob');
    await grantCluster(admin, 'bob', 'bob-ctb', [{ apiGroups: ['certificates.platform.io'], resources: ['clustertrustbundles'], verbs: ['create', 'update', 'get'] }]);
    expect((await bob.post(CTB, bundle('by-bob', caB))).status).toBe(201);
    const denied = await bob.post(CTB, bundle('example.net:s:bob', caB, 'example.net/s'));
    expect(denied.status).toBe(403);
    expect(denied.json().message).toContain('attest');
    await grantCluster(admin, 'bob', 'bob-attest', [{ apiGroups: ['certificates.platform.io'], resources: ['signers'], resourceNames: ['example.net/s'], verbs: ['attest'] }]);
    expect((await bob.post(CTB, bundle('example.net:s:bob', caB, 'example.net/s'))).status).toBe(201);
  });

  it('node authorizer: a node reads what its pods need and writes only its own Node, Lease and pod status', async () => {
    const node = srv().user('node1');
    const nodeObj = (name: string): Json => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } });
    expect((await node.post(`${CORE}/nodes`, nodeObj('node1'))).status).toBe(201);
    expect((await node.post(`${CORE}/nodes`, nodeObj('node2'))).status).toBe(403);
    expect((await admin.post(`${CORE}/nodes`, nodeObj('node2'))).status).toBe(201);
    const st = await node.patch(`${CORE}/nodes/node1/status`, { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'AgentReady', message: 'ok' }] } }, 'application/strategic-merge-patch+json');
    expect(st.status, st.text()).toBe(200);
    expect((await node.patch(`${CORE}/nodes/node2/status`, { status: { conditions: [] } }, 'application/strategic-merge-patch+json')).status).toBe(403);
    const lease = { apiVersion: 'coordination.platform.io/v1', kind: 'Lease', metadata: { name: 'node1' }, spec: { holderIdentity: 'node1', leaseDurationSeconds: 40 } };
    expect((await node.post('/apis/coordination.platform.io/v1/namespaces/platform-node-lease/leases', lease)).status).toBe(201);
    expect((await node.post('/apis/coordination.platform.io/v1/namespaces/platform-node-lease/leases', { ...lease, metadata: { name: 'node2' } })).status).toBe(403);
    const n = await makeNamespace(admin);
    await admin.post(`${ns(n)}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'used' }, data: { k: Buffer.from('v').toString('base64') } });
    await admin.post(`${ns(n)}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'unused' }, data: {} });
    await admin.post(`${ns(n)}/pods`, pod('on-1', { nodeName: 'node1', volumes: [{ name: 'v', secret: { secretName: 'used' } }] }));
    await admin.post(`${ns(n)}/pods`, pod('on-2', { nodeName: 'node2' }));
    expect((await node.get('/api/v1/pods', { query: { fieldSelector: 'spec.nodeName=node1' } })).status).toBe(200);
    expect((await node.get(`${ns(n)}/secrets/used`)).status).toBe(200);
    expect((await node.get(`${ns(n)}/secrets/unused`)).status).toBe(403);
    const podStatus = { status: { phase: 'Running' } };
    expect((await node.patch(`${ns(n)}/pods/on-1/status`, podStatus, 'application/strategic-merge-patch+json')).status).toBe(200);
    expect((await node.patch(`${ns(n)}/pods/on-2/status`, podStatus, 'application/strategic-merge-patch+json')).status).toBe(403);
  });
});
