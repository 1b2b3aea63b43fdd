// The API object source and the API-backed volume kinds and env against the
// real platform-apiserver (in memory) with a node identity (system:node:node1),
// so node authorization decides what the node may read: only objects its
// pods reference. configMap, secret and projected volumes (with the service
// account volume the server's admission adds, and ClusterTrustBundles by
// signer and selector) are written to a temporary --root-dir with their
// modes; a ConfigMap update reaches the files at the next setUp; the token
// is bound to the pod with the audience asked for; env and envFrom resolve;
// unregistering stops the watches (the tier's leak check sees the rest).
import { readFileSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadApiCodec } from '../../../src/api/codec/index.js';
import { MEDIA_PROTOBUF } from '../../../src/api/media.js';
import { createApiObjectSource } from '../../../src/api-objects/index.js';
import type { ApiClient, ApiObject, ClientLog, RestClient } from '../../../src/client/index.js';
import { RESOURCES } from '../../../src/client/index.js';
import { loadPlatformConfig } from '../../../src/client/config/index.js';
import { createRestClient } from '../../../src/client/rest/index.js';
import { createTransport } from '../../../src/client/transport/index.js';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { containerEnv } from '../../../src/pods/container-config.js';
import { fetchEnvObjects } from '../../../src/pods/env-from.js';
import { apiVolumePlugins, createVolumes } from '../../../src/volumes/index.js';
import { mountsUnder } from '../../../src/volumes/mounter.js';
import { selfSigned } from '../../conformance/helpers/certs.js';
import { startServer, USERS, type ServerHandle } from '../../conformance/helpers/server.js';
import { tempDir } from '../../helpers/agent-process.js';
import { testLogger } from '../../helpers/test-logger.js';

const isRoot = process.getuid?.() === 0;
const quiet: ClientLog = { info: () => undefined, warn: () => undefined, error: () => undefined };
const NS = 'apps';
const SIGNER = 'example.com/roots';
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const mode = (p: string): string => (statSync(p).mode & 0o777).toString(8);

let srv: ServerHandle;
let admin: ApiClient;
let node: ApiClient;
const tmp = tempDir('agent-api-objects-');

async function clientAs(token: string | undefined): Promise<ApiClient> {
  const conn = await loadPlatformConfig(join(srv.dir, 'admin.conf'));
  const connection = token === undefined ? conn : { ...conn, token, tokenFile: undefined, clientCert: undefined };
  const transport = createTransport(connection, { qps: 100_000, burst: 100_000, eventQps: 100_000, eventBurst: 100_000, log: quiet });
  const rest: RestClient = createRestClient({ transport, codec: await loadApiCodec(), contentType: MEDIA_PROTOBUF, log: quiet });
  return { connection, transport, rest, close: () => transport.close() };
}

const create = (type: (typeof RESOURCES)[keyof typeof RESOURCES], obj: ApiObject, ns = NS) => admin.rest.resource(type, ns).create(obj);

beforeAll(async () => {
  srv = await startServer({ backend: 'memory', featureGates: 'ClusterTrustBundle=true' });
  admin = await clientAs(undefined);
  node = await clientAs(USERS.node1.token);
  await create(RESOURCES.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node1' } });
  await create(RESOURCES.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await create(RESOURCES.serviceAccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' }, imagePullSecrets: [{ name: 'pull' }] });
  await create(RESOURCES.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app' }, data: { 'app.conf': 'v=1', MODE: 'prod' } });
  await create(RESOURCES.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'platform-root-ca.crt' }, data: { 'ca.crt': 'ROOT CA' } });
  await create(RESOURCES.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'unrelated' }, data: { x: 'y' } });
  await create(RESOURCES.secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds' }, data: { PASSWORD: b64('hunter2'), 'tls.key': b64('KEY') } });
  const [ca1, ca2, ca3] = [selfSigned('root-1', true), selfSigned('root-2', true), selfSigned('other', true)];
  const ctb = (name: string, bundle: string, labels: Record<string, string>) => create(RESOURCES.clusterTrustBundles, { apiVersion: 'certificates.platform.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name, labels }, spec: { signerName: SIGNER, trustBundle: bundle } }, '');
  await ctb('example.com:roots:a', ca1 + ca2, { trust: 'yes' });
  await ctb('example.com:roots:b', ca2, { trust: 'yes' });
  await ctb('example.com:roots:c', ca3, { trust: 'no' });
}, 60_000);

afterAll(async () => {
  await node?.close();
  await admin?.close();
  await srv?.stop();
  tmp.cleanup();
}, 30_000);

async function makePod(name: string): Promise<Pod> {
  const created = await create(RESOURCES.pods, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: name } },
    spec: {
      nodeName: 'node1',
      serviceAccountName: 'robot',
      volumes: [
        { name: 'conf', configMap: { name: 'app', items: [{ key: 'app.conf', path: 'etc/app.conf', mode: 0o600 }] } },
        { name: 'creds', secret: { secretName: 'creds', defaultMode: 0o400 } },
        { name: 'opt', configMap: { name: 'missing', optional: true } },
        { name: 'mix', projected: { defaultMode: 0o440, sources: [{ serviceAccountToken: { path: 'vault-token', audience: 'vault', expirationSeconds: 600 } }, { clusterTrustBundle: { path: 'roots.pem', signerName: SIGNER, labelSelector: { matchLabels: { trust: 'yes' } } } }, { secret: { name: 'creds', items: [{ key: 'PASSWORD', path: 'pw' }] } }] } },
      ],
      containers: [{ name: 'c', image: 'registry.local/app:1', envFrom: [{ prefix: 'APP_', configMapRef: { name: 'app' } }], env: [{ name: 'PW', valueFrom: { secretKeyRef: { name: 'creds', key: 'PASSWORD' } } }] }],
    },
  });
  const d = decodePod(created);
  if (!d.ok) throw new Error(JSON.stringify(d.problems));
  return d.pod;
}

describe('API-backed volumes and env for a pod bound to the node', () => {
  it('writes configMap, secret and projected volumes, follows a ConfigMap update, resolves env, and stops watching on unregister', async () => {
    const source = createApiObjectSource({ client: node, log: testLogger() });
    const stop = new AbortController();
    const running = source.run(stop.signal);
    try {
      const pod = await makePod('web');
      const uid = pod.metadata.uid;
      source.register(pod);
      expect([source.watchedConfigMaps(), source.watchedSecrets()]).toEqual([3, 2]);
      const root = join(tmp.dir, 'root');
      const volumes = createVolumes({ rootDirectory: root, node: { memoryBytes: 1 << 30, cpuMilli: 1000, ephemeralStorageBytes: 0 }, sizeMemoryBackedVolumes: true, log: testLogger(), extraPlugins: apiVolumePlugins(source, { clusterTrustBundles: true, secretsInMemory: isRoot }) });
      expect(await volumes.setUp(pod, stop.signal)).toEqual({ ready: true });

      const dir = (plugin: string, name: string) => join(root, 'pods', uid, 'volumes', `platform.io~${plugin}`, name);
      expect(readFileSync(join(dir('configmap', 'conf'), 'etc/app.conf'), 'utf8')).toBe('v=1');
      expect(mode(join(dir('configmap', 'conf'), 'etc/app.conf'))).toBe('600');
      expect(readlinkSync(join(dir('configmap', 'conf'), 'etc'))).toBe('..data/etc');
      expect([readFileSync(join(dir('secret', 'creds'), 'PASSWORD'), 'utf8'), mode(join(dir('secret', 'creds'), 'tls.key'))]).toEqual(['hunter2', '400']);
      // As root (the agent's case), a secret volume is a tmpfs: secrets never reach the node's disk.
      if (isRoot) expect((await mountsUnder(dir('secret', 'creds'))).map((m) => m.fsType)).toEqual(['tmpfs']);
      const mix = dir('projected', 'mix');
      expect([readFileSync(join(mix, 'pw'), 'utf8'), mode(join(mix, 'vault-token'))]).toEqual(['hunter2', '440']);
      const claims = JSON.parse(Buffer.from(readFileSync(join(mix, 'vault-token'), 'utf8').split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
      expect(claims['aud']).toEqual(['vault']);
      expect(JSON.stringify(claims)).toContain(uid);
      const roots = readFileSync(join(mix, 'roots.pem'), 'utf8');
      expect(roots.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);

      // The service account volume the admission added: token, root CA, namespace.
      const sa = pod.spec.volumes!.find((v) => v.name.startsWith('platform-api-access-'))!;
      expect(readFileSync(join(dir('projected', sa.name), 'ca.crt'), 'utf8')).toBe('ROOT CA');
      expect(readFileSync(join(dir('projected', sa.name), 'namespace'), 'utf8')).toBe(NS);
      expect(readFileSync(join(dir('projected', sa.name), 'token'), 'utf8').split('.')).toHaveLength(3);

      // env and envFrom through the same source.
      const c = pod.spec.containers[0]!;
      const envObjects = await fetchEnvObjects(pod, c, source, stop.signal);
      const env = containerEnv(pod, c, { nodeName: 'node1', hostIP: '127.0.0.1', podIP: '', podIPs: [], envObjects });
      expect(env.map((e) => `${e.key}=${e.value}`)).toEqual(['APP_MODE=prod', 'APP_app.conf=v=1', 'PW=hunter2']);

      // An update of the ConfigMap reaches the file at a later setUp (the watch delivers it).
      await admin.rest.resource(RESOURCES.configMaps, NS).patch('app', 'application/merge-patch+json', { data: { 'app.conf': 'v=2' } });
      await vi.waitFor(
        async () => {
          await volumes.setUp(pod, stop.signal);
          expect(readFileSync(join(dir('configmap', 'conf'), 'etc/app.conf'), 'utf8')).toBe('v=2');
        },
        { timeout: 10_000, interval: 50 },
      );

      // Node authorization: an object no pod of the node references is refused.
      await expect(source.configMap(NS, 'unrelated', stop.signal)).rejects.toMatchObject({ code: 403 });
      expect(await source.serviceAccount(NS, 'robot', stop.signal)).toEqual({ imagePullSecrets: ['pull'] });

      source.unregister(uid);
      expect([source.watchedConfigMaps(), source.watchedSecrets()]).toEqual([0, 0]);
      await volumes.tearDown(uid, stop.signal);
      expect(await mountsUnder(root)).toEqual([]);
    } finally {
      stop.abort();
      await running;
    }
  }, 60_000);

  it('a pod waits with the kubelet message for a missing required ConfigMap', async () => {
    const source = createApiObjectSource({ client: node, log: testLogger() });
    const stop = new AbortController();
    const running = source.run(stop.signal);
    try {
      const created = await create(RESOURCES.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'waits' }, spec: { nodeName: 'node1', automountServiceAccountToken: false, volumes: [{ name: 'v', configMap: { name: 'nope' } }], containers: [{ name: 'c', image: 'registry.local/app:1' }] } });
      const d = decodePod(created);
      if (!d.ok) throw new Error('decode');
      source.register(d.pod);
      const volumes = createVolumes({ rootDirectory: join(tmp.dir, 'root2'), node: { memoryBytes: 1 << 30, cpuMilli: 1000, ephemeralStorageBytes: 0 }, sizeMemoryBackedVolumes: true, log: testLogger(), extraPlugins: apiVolumePlugins(source, { clusterTrustBundles: true }) });
      const out = await volumes.setUp(d.pod, stop.signal);
      expect(out).toMatchObject({ ready: false, volume: 'v', kind: 'configMap', message: 'MountVolume.SetUp failed for volume "v" : configmap "nope" not found' });
      source.unregister(d.pod.metadata.uid);
      await volumes.tearDown(d.pod.metadata.uid, stop.signal);
    } finally {
      stop.abort();
      await running;
    }
  }, 30_000);
});
