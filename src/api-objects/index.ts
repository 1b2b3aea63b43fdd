// The API objects a node's pods reference (issue 19 item 8), behind one
// source the volume plugins, env resolution and image pulls share in
// API-server mode: ConfigMaps and Secrets followed by per-object watches while
// a registered pod uses them, bound service account tokens, ClusterTrustBundles
// and ServiceAccounts read when asked. The composition root creates it with
// the API client, runs it as a component, and registers each pod the agent
// admits (unregisters it when it is gone); standalone agents have none.
import type { ApiClient } from '../client/index.js';
import { RESOURCES } from '../client/index.js';
import { isNotFound } from '../api/errors.js';
import { defineComponent, type Component } from '../lifecycle/index.js';
import type { AgentLogger } from '../log/index.js';
import type { Pod } from '../pod-model/pod-types.js';
import { configMapData, podReferences, secretData, serviceAccountData } from './decode.js';
import { TokenManager } from './tokens.js';
import { readTrustBundles } from './trust-bundles.js';
import type { ApiObjectSource } from './types.js';
import { WatchedObjects } from './watched-objects.js';

export type { ApiObjectSource, ConfigMapData, IssuedToken, SecretData, ServiceAccountData, TokenRequestInput, TrustBundleQuery } from './types.js';
export { podReferences } from './decode.js';
export { needsRefresh, tokenRequestBody, type CachedToken } from './tokens.js';
export { mergeTrustBundles, certificateBlocks } from './trust-bundles.js';

export interface ApiObjectSourceOptions {
  client: ApiClient;
  log: AgentLogger;
  /** Test seams for the token refresh rule: the clock (ms) and [0, 1) randomness (jitter). */
  now?: () => number;
  random?: () => number;
}

/** What the source watches now, for tests and diagnostics. */
export interface ApiObjectSourceStats {
  watchedConfigMaps(): number;
  watchedSecrets(): number;
}

/**
 * Keeps the source's registrations equal to a pod set: every pod given is
 * registered (a changed pod swaps its references), every pod registered
 * before and missing now is unregistered. For a callback that receives the
 * node's whole pod list (the API pod source's onPods). Never blocks.
 */
export function podRegistrations(source: Pick<ApiObjectSource, 'register' | 'unregister'>): (pods: readonly Pod[]) => void {
  let known = new Set<string>();
  return (pods) => {
    const now = new Set<string>();
    for (const p of pods) {
      source.register(p);
      now.add(p.metadata.uid);
    }
    for (const uid of known) if (!now.has(uid)) source.unregister(uid);
    known = now;
  };
}

export function createApiObjectSource(o: ApiObjectSourceOptions): ApiObjectSource & Component & ApiObjectSourceStats {
  const log = o.log.child({ component: 'api-objects' });
  const configMaps = new WatchedObjects(o.client, RESOURCES.configMaps, log);
  const secrets = new WatchedObjects(o.client, RESOURCES.secrets, log);
  const tokens = new TokenManager(o.client, o.now, o.random);

  const component = defineComponent('api-objects', async (signal, markReady) => {
    markReady();
    await Promise.all([configMaps.run(signal), secrets.run(signal)]);
  });

  return {
    name: component.name,
    ready: component.ready,
    run: (signal) => component.run(signal),
    watchedConfigMaps: () => configMaps.size,
    watchedSecrets: () => secrets.size,
    async configMap(ns, name, signal) {
      const obj = await configMaps.get(ns, name, signal);
      return obj === undefined ? undefined : configMapData(obj);
    },
    async secret(ns, name, signal) {
      const obj = await secrets.get(ns, name, signal);
      return obj === undefined ? undefined : secretData(obj);
    },
    serviceAccountToken: (req, signal) => tokens.token(req, signal),
    clusterTrustBundles: (q, signal) => readTrustBundles(o.client, q, signal),
    async serviceAccount(ns, name, signal) {
      try {
        return serviceAccountData(await o.client.rest.resource(RESOURCES.serviceAccounts, ns).get(name, { signal }));
      } catch (e) {
        if (isNotFound(e)) return undefined;
        throw e;
      }
    },
    register(pod: Pod) {
      const refs = podReferences(pod);
      configMaps.setPod(pod.metadata.uid, pod.metadata.namespace, refs.configMaps);
      secrets.setPod(pod.metadata.uid, pod.metadata.namespace, refs.secrets);
    },
    unregister(uid: string) {
      configMaps.removePod(uid);
      secrets.removePod(uid);
      tokens.forgetPod(uid);
    },
  };
}
