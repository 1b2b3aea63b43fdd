// The node's HTTP surface, wired: the read-only port (10255) and the main
// port (10250) with their routes, authentication and authorization, and the
// stats provider the stats routes read. A wiring file of the composition root
// (agent.ts calls it): every part is built by its own folder's factory.
import { hostname } from 'node:os';
import { isIP } from 'node:net';
import { servingRotationDecision, type ServingCertificateSource } from './certificates/index.js';
import { configzDocument } from './config/print.js';
import type { ResolvedConfig } from './config/resolve.js';
import type { RuntimeService } from './cri/types.js';
import type { Component, LivenessRegistry } from './lifecycle/index.js';
import type { AgentLogger } from './log/index.js';
import { httpObserver, metricsRoutes, type AgentMetrics } from './metrics/index.js';
import { authorizeRequest, createAuthenticator, createAuthorizer, type AccessReviewer, type TokenReviewer } from './server/auth/index.js';
import { createLoadGovernor, createNodeServer } from './server/http/index.js';
import { logRoutes } from './server/logs/index.js';
import { basicRoutes } from './server/routes/index.js';
import { streamingRoutes } from './server/streaming/index.js';
import { loadAgentServingMaterial, mainTlsOptions } from './server/tls/index.js';
import type { Route } from './server/types.js';
import { createStatsProvider, statsRoutes } from './stats/index.js';
import type { StatusStore } from './status/index.js';

export interface NodeServersInput {
  readonly resolved: ResolvedConfig;
  readonly log: AgentLogger;
  readonly liveness: LivenessRegistry;
  readonly metrics: AgentMetrics;
  readonly node: { readonly name: string; readonly ip: string };
  /** The pod wing's state; undefined when the agent manages no pods (no runtime connection). */
  readonly pods: { readonly runtime: RuntimeService; readonly status: StatusStore; readonly podLogsDir: string; readonly busy: () => boolean } | undefined;
  /** The API server's review calls (API-server mode); undefined standalone. */
  readonly reviews: { readonly tokenReview: TokenReviewer; readonly accessReview: AccessReviewer } | undefined;
  /** --rotate-server-certificates in API-server mode: the main port serves its pairs instead of a self-signed certificate. */
  readonly servingCertificate?: ServingCertificateSource | undefined;
}

const NO_PODS: Pick<StatusStore, 'all' | 'version'> = { all: () => [], version: 0 };

/** The components serving 10255 and 10250 (and the stats provider), in start order. */
export async function wireNodeServers(i: NodeServersInput): Promise<Component[]> {
  const { config: cfg, flags } = i.resolved;
  const log = i.log.child({ component: 'server' });
  const components: Component[] = [];
  const routes: Route[] = [
    ...metricsRoutes(i.metrics),
    ...basicRoutes({ status: i.pods?.status ?? NO_PODS, runtime: i.pods?.runtime, liveness: i.liveness, configz: () => configzDocument(cfg, i.resolved.provenance), nodeName: i.node.name, log }),
  ];
  if (i.pods) {
    const { runtime, status, podLogsDir } = i.pods;
    const stats = createStatsProvider({
      runtime,
      status,
      rootDir: flags.rootDirectory,
      nodeName: i.node.name,
      ...(cfg.volumeStatsAggPeriod > 0 ? { diskUsagePeriodMs: cfg.volumeStatsAggPeriod } : {}),
      log: i.log.child({ component: 'stats' }),
    });
    components.push(stats);
    routes.push(
      ...statsRoutes(stats),
      ...logRoutes({ status, runtime, podLogsDir, nodeLogDir: '/var/log', log: i.log.child({ component: 'server-logs' }) }),
      ...streamingRoutes({ status, runtime, streamingIdleTimeoutMs: cfg.streamingConnectionIdleTimeout, log: i.log.child({ component: 'streaming' }) }),
    );
  }
  const observer = httpObserver(i.metrics);
  // Both node servers share the agent's thread with the sync loop, so they share one governor;
  // it holds requests only while a pod worker has work (with no pods to manage, never).
  const pods = i.pods;
  const governor = createLoadGovernor({ busy: () => pods?.busy() ?? false });
  components.push(createNodeServer({ server: 'readOnly', address: cfg.address, port: cfg.readOnlyPort, tls: undefined, routes, auth: undefined, enableDebuggingHandlers: cfg.enableDebuggingHandlers, observer, governor, log }));
  if (!cfg.enableServer) return components;

  const rotating = i.servingCertificate;
  // Standalone: said here (API-server mode says its own in cluster.ts).
  const decision = servingRotationDecision({ ...cfg, apiServer: false });
  if (i.reviews === undefined && decision.warning !== undefined) log.warn(decision.warning);
  const material = rotating !== undefined ? rotating.current() : await loadAgentServingMaterial({
    certDir: flags.certDirectory,
    tlsCertFile: cfg.tlsCertFile,
    tlsPrivateKeyFile: cfg.tlsPrivateKeyFile,
    hostnames: [...new Set([i.node.name, hostname(), 'localhost'])],
    addresses: [...new Set([i.node.ip, '127.0.0.1', '::1', ...(isIP(cfg.address) !== 0 && cfg.address !== '0.0.0.0' && cfg.address !== '::' ? [cfg.address] : [])])],
    log,
  });
  const tls = await mainTlsOptions({ material, clientCAFile: cfg.authentication.x509.clientCAFile, tlsMinVersion: cfg.tlsMinVersion, tlsCipherSuites: cfg.tlsCipherSuites });
  for (const w of tls.warnings) log.warn(w);
  const reviews = i.reviews ?? standaloneReviews(cfg.authentication.webhook.enabled, cfg.authorization.mode === 'Webhook', log);
  const authenticator = createAuthenticator({
    anonymous: cfg.authentication.anonymous.enabled,
    clientCA: cfg.authentication.x509.clientCAFile !== '',
    tokenReview: cfg.authentication.webhook.enabled ? reviews.tokenReview : undefined,
    cacheTtlMs: cfg.authentication.webhook.cacheTTL,
    log,
  });
  const authorizer = createAuthorizer({
    mode: cfg.authorization.mode,
    accessReview: reviews.accessReview,
    authorizedTtlMs: cfg.authorization.webhook.cacheAuthorizedTTL,
    unauthorizedTtlMs: cfg.authorization.webhook.cacheUnauthorizedTTL,
    log,
  });
  const main = createNodeServer({
    server: 'main',
    address: cfg.address,
    port: cfg.port,
    tls: tls.options,
    routes,
    auth: { authenticator, authorize: (r, signal) => authorizeRequest(authorizer, { ...r, nodeName: i.node.name }, signal) },
    enableDebuggingHandlers: cfg.enableDebuggingHandlers,
    observer,
    governor,
    log,
  });
  // The rotation runs before the servers start: a pair it loads or is issued reaches the server before or after it listens.
  rotating?.onRotate((pair) => {
    try {
      main.setServingCertificate(pair);
      log.info('The main port serves the new serving certificate');
    } catch (e) {
      log.error('The main port cannot serve the new serving certificate; it keeps the previous one', { error: (e as Error).message });
    }
  });
  components.push(main);
  return components;
}

const NO_API_SERVER = 'no API server to ask (standalone: no --platformconfig)';

/**
 * Standalone, the review APIs are out of reach. The kubelet refuses to start
 * then; the agent keeps serving what needs no review (client certificates,
 * anonymous, AlwaysAllow): bearer tokens are refused and a Webhook authorizer
 * denies, each said once at start.
 */
function standaloneReviews(tokenWebhook: boolean, webhookAuthz: boolean, log: Pick<AgentLogger, 'warn'>): { tokenReview: TokenReviewer; accessReview: AccessReviewer } {
  if (tokenWebhook) log.warn(`--authentication-token-webhook: ${NO_API_SERVER}; bearer tokens are refused on the main port`);
  if (webhookAuthz) log.warn(`--authorization-mode=Webhook: ${NO_API_SERVER}; every request to the main port is denied`);
  return {
    tokenReview: async () => ({ authenticated: false, error: NO_API_SERVER }),
    accessReview: async () => ({ allowed: false, reason: NO_API_SERVER }),
  };
}
