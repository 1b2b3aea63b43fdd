// API-server mode, wired: the connection to the cluster (bootstrap, the API
// client, certificate rotation), the managers that only exist with an API
// server (events, the configMap/secret/token source, node registration and
// status, the API pod source, pod status and mirror pods) and where each one
// plugs into the pod wing. A wiring file of the composition root (agent.ts
// calls connectCluster once, and wirePods calls clusterPodParts): every part
// is built by its own folder's factory.
import type { ResolvedConfig } from './config/resolve.js';
import { createApiObjectSource, podRegistrations, type ApiObjectSource } from './api-objects/index.js';
import { bootstrapClientCertificate, createClientCertificateRotation, createServingCertificateRotation, servingRotationDecision, type ServingCertificateRotation } from './certificates/index.js';
import { createApiClient, type ApiClient, type ApiContentType } from './client/index.js';
import type { CriRuntime } from './cri/index.js';
import { createEventRecorder, type EventRecorder } from './events/index.js';
import type { Component } from './lifecycle/index.js';
import type { AgentLogger } from './log/index.js';
import { hostNetwork, nodeAddresses } from './node/addresses.js';
import { createNodeAgent } from './node-status/index.js';
import { createMirrorPods, createPodStatusSync } from './pod-sync/index.js';
import type { Pod } from './pod-model/pod-types.js';
import { apiReviewers, type AccessReviewer, type TokenReviewer } from './server/auth/index.js';
import { createApiPodSource } from './sources/index.js';
import type { StatusStore } from './status/index.js';

/** What API-server mode adds before the pod wing exists. */
export interface Cluster {
  readonly client: ApiClient;
  readonly events: EventRecorder;
  readonly apiObjects: ApiObjectSource;
  readonly reviews: { readonly tokenReview: TokenReviewer; readonly accessReview: AccessReviewer };
  /** --rotate-server-certificates: the main port's certificates (wireNodeServers serves them); undefined otherwise. */
  readonly servingCertificate: ServingCertificateRotation | undefined;
  /** Started before the pod wing and stopped after it: events, the object source, certificate rotations. */
  readonly components: readonly Component[];
  /** Closes the API client's connections; after every component stopped. */
  close(): Promise<void>;
}

const CONTENT_TYPES: readonly ApiContentType[] = ['application/json', 'application/vnd.platform.protobuf'];

/**
 * Bootstraps the client certificate when --bootstrap-platformconfig asks for
 * it (may wait for the CSR to be signed until `signal` aborts; rejects on a
 * denied or failed request), then builds the client from --platformconfig
 * (rejects naming the file and field when it cannot be used). Opens no
 * connection beyond the bootstrap's.
 */
export async function connectCluster(r: ResolvedConfig, nodeName: string, log: AgentLogger, signal: AbortSignal): Promise<Cluster> {
  const { config: cfg, flags } = r;
  const certLog = log.child({ component: 'certificates' });
  await bootstrapClientCertificate({ platformconfig: flags.platformconfig, bootstrapPlatformconfig: flags.bootstrapPlatformconfig, certDir: flags.certDirectory, nodeName, log: certLog, signal });
  const contentType = CONTENT_TYPES.find((t) => t === cfg.contentType) ?? 'application/vnd.platform.protobuf';
  const client = await createApiClient({
    platformconfig: flags.platformconfig,
    platformApiQps: cfg.platformAPIQPS,
    platformApiBurst: cfg.platformAPIBurst,
    eventQps: cfg.eventRecordQPS,
    eventBurst: cfg.eventBurst,
    contentType,
    log: log.child({ component: 'client' }),
  });
  const events = createEventRecorder({ client, component: 'agent', host: nodeName, log: log.child({ component: 'events' }) });
  const apiObjects = createApiObjectSource({ client, log });
  const components: Component[] = [events, apiObjects];
  if (cfg.rotateCertificates) components.push(createClientCertificateRotation({ client, certDir: flags.certDirectory, nodeName, log: certLog }));
  const servingCertificate = servingRotation(r, nodeName, client, certLog);
  if (servingCertificate !== undefined) components.push(servingCertificate);
  return { client, events, apiObjects, reviews: apiReviewers(client), servingCertificate, components, close: () => client.close() };
}

/**
 * --rotate-server-certificates (its gate is checked by validation): the
 * rotation of the main port's certificate, for the node's status addresses.
 * An operator's --tls-cert-file/--tls-private-key-file wins: then it is not
 * built (said once).
 */
function servingRotation(r: ResolvedConfig, nodeName: string, client: ApiClient, log: AgentLogger): ServingCertificateRotation | undefined {
  const { config: cfg, flags } = r;
  const decision = servingRotationDecision({ ...cfg, apiServer: true });
  if (decision.warning !== undefined) log.warn(decision.warning);
  if (!decision.rotate) return undefined;
  const addresses = () => {
    const a = nodeAddresses(flags.nodeIP, nodeName, hostNetwork());
    return a.ok ? a.addresses : undefined;
  };
  return createServingCertificateRotation({ client, certDir: flags.certDirectory, nodeName, addresses, log });
}

/** What the pod wing hands API-server mode. */
export interface PodWingHooks {
  readonly resolved: ResolvedConfig;
  readonly version: string;
  readonly nodeName: string;
  readonly runtime: CriRuntime;
  readonly status: StatusStore;
  readonly sidecars: boolean;
  /** The PLEG's verdict: why the node is not ready, undefined when healthy. */
  readonly health: () => string | undefined;
  /** Whether the pod workers may still hold containers of the pod (a deleted API pod is removed only after). */
  readonly couldHaveRunningContainers: (uid: string) => boolean;
  /** Hands the API server's pods to the merger (source 'api'). */
  readonly feedApiPods: (pods: Pod[]) => void;
  readonly log: AgentLogger;
}

export interface ClusterPodParts {
  /** In start order, after the pod manager: status sync, mirror pods, node agent; the API pod source is `source`. */
  readonly components: readonly Component[];
  /** Started last, stopped first (a source stops before what it feeds). */
  readonly source: Component;
  /** Called after every merger change: mirror pods follow the static pods. */
  staticPodsChanged(pods: readonly Pod[], allSourcesSeen: boolean): void;
}

export function clusterPodParts(c: Cluster, w: PodWingHooks): ClusterPodParts {
  const { client } = c;
  const { log } = w;
  const node = createNodeAgent({
    client,
    resolved: w.resolved,
    nodeName: w.nodeName,
    version: w.version,
    runtime: w.runtime,
    health: w.health,
    events: c.events,
    log: log.child({ component: 'node-status' }),
  });
  // Only API pods may read the objects they reference (node authorization); static pods never ask.
  const track = podRegistrations(c.apiObjects);
  const source = createApiPodSource({
    client,
    nodeName: w.nodeName,
    sidecars: w.sidecars,
    log: log.child({ component: 'api-source' }),
    onPods: (pods) => {
      track(pods);
      w.feedApiPods(pods);
    },
  });
  const statusSync = createPodStatusSync({ client, status: w.status, informer: source.informer, couldHaveRunningContainers: w.couldHaveRunningContainers, log: log.child({ component: 'status-manager' }) });
  const mirrors = createMirrorPods({ client, node: () => node.registered(), informer: source.informer, log: log.child({ component: 'mirror-pods' }) });
  return {
    components: [statusSync, mirrors, node],
    source,
    staticPodsChanged: (pods, seen) => mirrors.setStaticPods(pods, seen),
  };
}
