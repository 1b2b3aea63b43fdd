// The back end of platform-apiserver, built from its configuration: the
// store (in memory, or etcd with its compactor), the API codec, the registry
// with its strategies, the verb handlers the front calls, and the server's
// controllers (root-CA publisher, CSR signing). The front
// (main.ts) owns the listener; this owns everything behind it. One way to
// start (assembleBackend, then run(signal) for the background work), one way
// to stop (abort, then close()).
import { loadApiCodec } from '../../api/codec/index.js';
import type { AgentLogger } from '../../log/index.js';
import { createFaults, faultsEnabled } from '../faults/index.js';
import { createResourceHandler } from '../handlers/index.js';
import type { ApiServerDeps } from '../main.js';
import type { ApiFeatureGates } from '../options/gates.js';
import type { ApiServerConfig } from '../options/table.js';
import { createRegistry, type Registry } from '../registry/index.js';
import { createCompactor } from '../storage/compactor.js';
import { createEtcdStorage } from '../storage/etcd-store.js';
import type { Storage } from '../storage/interface.js';
import { createMemoryStorage } from '../storage/memory.js';
import { staticTokensFromFile } from '../authn/static-token.js';
import { loadServingMaterial, servingHosts } from '../certs/serving.js';
import { assembleAuth } from './auth.js';
import { assembleControllers } from './controllers.js';
import { ensureBootstrapPolicy } from './bootstrap-policy.js';
import { bootstrapPolicy } from '../authz/bootstrap.js';
import { registryPort } from './registry-port.js';
import { REVIEW_RESOURCES } from '../registry/resources/reviews.js';
import { storageCodec, wireCodec } from './wire.js';

export interface AssembledBackend {
  readonly deps: ApiServerDeps;
  readonly registry: Registry;
  readonly storage: Storage;
  /** Background work (the controllers, the etcd compactor) until `signal` aborts. */
  run(signal: AbortSignal): Promise<void>;
  /** Closes the store (ends its watches). Idempotent. */
  close(): Promise<void>;
}

export async function assembleBackend(config: ApiServerConfig, gates: ApiFeatureGates, log: AgentLogger, env: NodeJS.ProcessEnv = process.env): Promise<AssembledBackend> {
  const storageLog = log.child({ component: 'storage' });
  const etcd = config.etcdServers.length > 0 ? await createEtcdStorage({ endpoints: config.etcdServers, prefix: `${config.etcdPrefix.replace(/\/+$/, '')}/`, log: storageLog }) : undefined;
  // In memory the compaction interval is the retained history window itself.
  const storage: Storage = etcd ?? createMemoryStorage({ historyWindowMs: config.etcdCompactionInterval });
  const codec = await loadApiCodec();
  const registry = createRegistry({
    storage,
    codec: storageCodec(codec),
    options: { continueTtlMs: config.continueTokenLifetime },
    featureGates: gates,
    virtualResources: REVIEW_RESOURCES,
  });
  await registry.namespaces.ensureSystemNamespaces();
  await ensureBootstrapPolicy(registry, bootstrapPolicy());
  // The serving material and static tokens are loaded here rather than in the front: the root-CA
  // publisher needs the CA, TokenReview the static tokens, the CSR signer the CA in --cert-dir.
  const serving = await loadServingMaterial({ tlsCertFile: config.tlsCertFile, tlsPrivateKeyFile: config.tlsPrivateKeyFile, certDir: config.certDir, hosts: servingHosts(config.bindAddress), log: log.child({ component: 'certs' }) });
  const staticTokens = await staticTokensFromFile(config.tokenAuthFile, log);
  const auth = await assembleAuth(registry, config, staticTokens);
  for (const ns of (await registry.store({ group: '', resource: 'namespaces' })!.list('', { readAt: { kind: 'MostRecent' } })).items) await auth.namespaceDefaults(ns.metadata.name ?? '');
  const faults = faultsEnabled(env) ? createFaults(storage) : undefined;
  if (faults !== undefined) log.warn('Test fault injection is enabled (PLATFORM_APISERVER_TEST_FAULTS=1): /debug/faults/ is served');
  const handle = createResourceHandler({
    registry: registryPort(registry, auth.actions, auth.virtual),
    admission: auth.admission,
    wire: wireCodec(codec),
    gates: { watchList: gates.WatchList, compression: gates.APIResponseCompression, chunking: gates.APIListChunking },
    minRequestTimeoutSeconds: config.minRequestTimeout,
    log: log.child({ component: 'handlers' }),
    ...(faults === undefined ? {} : { faults }),
  });
  const controllers = await assembleControllers({ config, registry, authorizer: auth.authorizer, servingCaPem: serving.caPem, log });
  let closed = false;
  return {
    deps: {
      handle,
      authorizers: auth.authorizers,
      tokenAuthenticators: auth.tokenAuthenticators,
      serving,
      staticTokens,
      ...(controllers.signingCaPem === undefined ? {} : { clientCaPems: [controllers.signingCaPem] }),
    },
    registry,
    storage,
    async run(signal) {
      await Promise.all([
        controllers.run(signal),
        etcd === undefined ? undefined : createCompactor({ storage: etcd, intervalMs: config.etcdCompactionInterval, coordinator: etcd.compaction, log: storageLog }).run(signal),
      ]);
    },
    async close() {
      if (closed) return;
      closed = true;
      await storage.close();
    },
  };
}
