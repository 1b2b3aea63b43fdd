// The agent's API-server-mode pod wiring against the real platform-apiserver
// (in memory, with the test fault API) as the node `system:node:node1`
// (static token; node authorization and NodeRestriction apply): the API pod
// source and a file "source" fed by hand → merger → pod manager on the
// in-memory runtime → status store → pod status sync, plus the mirror pod
// manager. Tests wait on events (source sets, sync loop steps, status
// changes, informer events), never on polling timers; until()'s one timer
// only bounds the wait.
import { untilChecked } from '../../helpers/until.js';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createApiClient, RESOURCES, type ApiClient } from '../../../src/client/index.js';
import type { ApiObject, RestClient } from '../../../src/client/index.js';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import { ImageManager } from '../../../src/images/manager.js';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { createPleg } from '../../../src/pleg/generic.js';
import { createMirrorPods, createPodStatusSync, type NodeRef } from '../../../src/pod-sync/index.js';
import { createPodManager, createSysctlAllowlist } from '../../../src/pods/index.js';
import { createApiPodSource } from '../../../src/sources/api.js';
import { PodConfigMerger } from '../../../src/sources/merger.js';
import { applyStaticPodDefaults } from '../../../src/sources/static-pod.js';
import { StatusStore } from '../../../src/status/store.js';
import { KeyedBackoff } from '../../../src/util/backoff.js';
import { tempDir } from '../../helpers/agent-process.js';
import { testLogger } from '../../helpers/test-logger.js';
import type { ServerHandle } from '../../conformance/helpers/server.js';
import { USERS } from '../../conformance/helpers/server.js';

export const NODE = 'node1';
export const IMAGE = 'localhost/busybox:latest';

/** A platformconfig for `system:node:node1` (its static token), as the agent's --platformconfig. */
export async function nodeClient(srv: ServerHandle, user: keyof typeof USERS = 'node1'): Promise<ApiClient> {
  const file = join(srv.dir, `${user}.conf`);
  const conf = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster: { server: srv.url, 'certificate-authority-data': Buffer.from(srv.ca).toString('base64') } }],
    users: [{ name: 'u', user: { token: USERS[user].token } }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'x',
  };
  await writeFile(file, JSON.stringify(conf));
  return createApiClient({ platformconfig: file, platformApiQps: 1000, platformApiBurst: 1000, eventQps: 1000, eventBurst: 1000, contentType: 'application/vnd.platform.protobuf', log: testLogger() });
}

/** A static pod of node1 as the file source makes it. */
export function staticPod(name: string, extraSpec: Record<string, unknown> = {}): Pod {
  const d = decodePod({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { hostNetwork: true, terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: IMAGE, imagePullPolicy: 'IfNotPresent' }], ...extraSpec } });
  if (!d.ok) throw new Error(JSON.stringify(d.problems));
  return applyStaticPodDefaults(d.pod, NODE, 'file', `/m/${name}.yaml`, new Date());
}

/** A pod for node1 as a user posts it (bound directly, as the scheduler would). */
export const apiPod = (name: string, grace = 1): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { nodeName: NODE, hostNetwork: true, automountServiceAccountToken: false, terminationGracePeriodSeconds: grace, containers: [{ name: 'main', image: IMAGE, imagePullPolicy: 'IfNotPresent' }] },
});

export interface Wiring {
  readonly status: StatusStore;
  readonly runtime: FakeRuntime;
  readonly log: ReturnType<typeof testLogger>;
  /** The API source's latest set. */
  apiPods(): Pod[];
  /** A pod as the node's informer holds it now (status writes show up here). */
  object(name: string, ns?: string): ApiObject | undefined;
  /** The last state of every pod the informer saw deleted, in order. */
  readonly deleted: readonly ApiObject[];
  /** Sets the file source's pods (static pods). */
  setStatic(pods: Pod[]): void;
  /** Resolves with fn()'s first truthy value, checked after every event; rejects after `ms`. */
  until<T>(fn: () => T | undefined | false, what: string, ms?: number): Promise<T>;
  /** Re-checks pending until() calls (after an awaited API read, say). */
  notify(): void;
  stop(): Promise<void>;
}

/** Starts the wiring as src/agent.ts will run it in API-server mode. */
export function wire(client: ApiClient, node: NodeRef, opts: { statusResyncMs?: number } = {}): Wiring {
  const runtime = new FakeRuntime({ images: [IMAGE] });
  const t = tempDir();
  const log = testLogger();
  const status = new StatusStore();
  const merger = new PodConfigMerger(['file', 'api']);
  const checks = new Set<() => void>();
  const notify = (): void => {
    for (const check of [...checks]) check();
  };
  status.subscribe(notify);
  let latestApi: Pod[] = [];
  const images = new ImageManager({ images: runtime, maxParallel: 1, backoff: new KeyedBackoff({ initialMs: 50, maxMs: 400 }), credentials: async () => [], log });
  const manager = createPodManager({
    status,
    runtimeName: () => 'fake',
    syncFrequencyMs: 60_000,
    maxPods: 110,
    // The safe set only: a pod asking for an unsafe sysctl is rejected at admission.
    sysctls: createSysctlAllowlist([]),
    allSourcesSeen: () => merger.allSourcesSeen(),
    requestRelist: () => pleg.kick(),
    onStep: () => notify(),
    sync: {
      runtime,
      images,
      crashBackoff: new KeyedBackoff({ initialMs: 100, maxMs: 400 }),
      nodeName: NODE,
      hostIP: '127.0.0.1',
      log,
      sandbox: { dns: { clusterDNS: [], clusterDomain: '', host: () => undefined, nodeIPs: ['127.0.0.1'] }, podLogsDir: t.dir, cgroupParent: '' },
      container: { cpuCFSQuota: true, cpuCFSQuotaPeriodMs: 100, memoryCapacity: 8 << 30, seccompDefault: false, rootDirectory: t.dir },
    },
  });
  const pleg = createPleg({ runtime, log, onRelist: (c, s, at) => manager.onRelist(c, s, at), periodMs: 20 });
  const source = createApiPodSource({
    client,
    nodeName: NODE,
    log,
    onPods: (pods) => {
      latestApi = pods;
      feed('api', pods);
    },
  });
  const deleted: ApiObject[] = [];
  source.informer.addHandlers({
    onAdd: notify,
    onUpdate: notify,
    onDelete: (obj) => {
      deleted.push(obj);
      notify();
    },
  });
  const statusSync = createPodStatusSync({ client, status, informer: source.informer, couldHaveRunningContainers: (uid) => manager.couldHaveRunningContainers(uid), log, ...(opts.statusResyncMs === undefined ? {} : { resyncMs: opts.statusResyncMs }), retryInitialMs: 50 });
  const mirrors = createMirrorPods({ client, node: async () => node, informer: source.informer, log, retryInitialMs: 50 });
  function feed(name: 'file' | 'api', pods: Pod[]): void {
    manager.applyUpdates(merger.set(name, pods).updates);
    mirrors.setStaticPods(merger.pods(), merger.allSourcesSeen());
    notify();
  }
  const ac = new AbortController();
  // The file source has reported (no static pods yet): removals and teardowns need every source heard from.
  feed('file', []);
  const runs = [manager.run(ac.signal), pleg.run(ac.signal), source.run(ac.signal), statusSync.run(ac.signal), mirrors.run(ac.signal)];
  const until = <T>(fn: () => T | undefined | false, what: string, ms = 10_000): Promise<T> => untilChecked(checks, fn, what, ms, () => `log: ${JSON.stringify(log.records.slice(-15))}`);
  return {
    status,
    runtime,
    log,
    apiPods: () => latestApi,
    deleted,
    object: (name, ns = 'default') => source.informer.store.get(`${ns}/${name}`),
    setStatic: (pods) => feed('file', pods),
    until,
    notify,
    async stop() {
      ac.abort();
      await Promise.all(runs);
      t.cleanup();
    },
  };
}

/** The admin's rest client helpers the tests use. */
export const podsOf = (rest: RestClient, ns = 'default') => rest.resource(RESOURCES.pods, ns);
