// The composition root of platform-apiserver's front: serving certificate,
// authentication (client CA, token file, admin token, injected token
// authenticators), authorization chain, the filter pipeline and the HTTPS
// listener, then the admin platformconfig. The integrator passes the
// registry's handler (and later RBAC and service-account authenticators) in
// `deps`. One way to start (startApiServer), one way to stop (abort `signal`).
import { readFile } from 'node:fs/promises';
import { AgentError } from '../errors.js';
import { onAbort } from '../lifecycle/abort.js';
import type { AgentLogger } from '../log/index.js';
import { ADMIN_USER, newAdminToken, serverUrl, writePlatformconfig } from './authn/admin.js';
import { staticTokensFromFile, type StaticTokenAuthenticator } from './authn/static-token.js';
import type { TokenAuthenticator } from './authn/types.js';
import { loadServingMaterial, servingHosts, type ServingMaterial } from './certs/serving.js';
import { mastersOnly } from './http/filters/authorization.js';
import { buildPipeline } from './http/pipeline.js';
import { notFoundHandler, type ApiHandler } from './http/routes.js';
import { serveHttps } from './http/server.js';
import type { ApiFeatureGates } from './options/gates.js';
import type { ApiServerConfig } from './options/table.js';
import type { Authorizer } from './types.js';

export interface ApiServerSettings {
  readonly config: ApiServerConfig;
  readonly gates: ApiFeatureGates;
}

export interface ApiServerDeps {
  /** The verb handlers (the registry's); default: 404 for every path but health and /version. */
  handle?: ApiHandler;
  /** The authorization chain; default: system:masters only. */
  authorizers?: readonly Authorizer[];
  /** Asked after the static tokens (service-account JWTs). */
  tokenAuthenticators?: readonly TokenAuthenticator[];
  /** In-flight requests' time to finish on stop (default 10 s). */
  shutdownGraceMs?: number;
  /** The serving certificate when the back end loaded it already (it publishes the CA); default: loaded here. */
  serving?: ServingMaterial;
  /** The static tokens (--token-auth-file) when the back end loaded them (its TokenReview asks them); the admin token is added to them. */
  staticTokens?: StaticTokenAuthenticator;
  /** CAs trusted for client certificates beside --client-ca-file (the CSR signer's). */
  clientCaPems?: readonly string[];
}

export interface RunningApiServer {
  /** `https://host:port` as clients should use it (loopback for a wildcard bind address). */
  readonly url: string;
  readonly port: number;
  /** The CA clients verify the serving certificate with. */
  readonly caPem: string;
  /** The admin bearer token when --admin-platformconfig is set. */
  readonly adminToken: string | undefined;
  /** Resolves once the server stopped after `signal` aborted. */
  readonly stopped: Promise<void>;
}

async function readClientCa(path: string): Promise<string | undefined> {
  if (path === '') return undefined;
  try {
    const text = await readFile(path, 'utf8');
    if (!text.includes('-----BEGIN CERTIFICATE-----')) throw new Error('no PEM CERTIFICATE block');
    return text;
  } catch (e) {
    throw new AgentError('ESTARTUP', `--client-ca-file ${path}: ${(e as Error).message}`, { flag: '--client-ca-file', file: path, cause: e });
  }
}

/** Starts serving. Rejects with an AgentError naming the flag or file when something given cannot be used. */
export async function startApiServer(settings: ApiServerSettings, deps: ApiServerDeps, log: AgentLogger, signal: AbortSignal): Promise<RunningApiServer> {
  const c = settings.config;
  const certLog = log.child({ component: 'certs' });
  const serving = deps.serving ?? (await loadServingMaterial({ tlsCertFile: c.tlsCertFile, tlsPrivateKeyFile: c.tlsPrivateKeyFile, certDir: c.certDir, hosts: servingHosts(c.bindAddress), log: certLog }));
  const cas = [await readClientCa(c.clientCAFile), ...(deps.clientCaPems ?? [])].filter((p): p is string => p !== undefined);
  const clientCaPem = cas.length === 0 ? undefined : cas.map((p) => (p.endsWith('\n') ? p : `${p}\n`)).join('');

  const statics = deps.staticTokens ?? (await staticTokensFromFile(c.tokenAuthFile, log));
  const adminToken = c.adminPlatformconfig === '' ? undefined : newAdminToken();
  if (adminToken !== undefined) statics.add(adminToken, ADMIN_USER);

  const pipeline = buildPipeline({
    tokenAuthenticators: [statics, ...(deps.tokenAuthenticators ?? [])],
    authorizers: deps.authorizers ?? [mastersOnly],
    handle: deps.handle ?? notFoundHandler,
    requestTimeoutMs: c.requestTimeout,
    maxBodyBytes: c.maxResourceWriteBytes,
  });
  const tls = clientCaPem === undefined ? { certPem: serving.certPem, keyPem: serving.keyPem } : { certPem: serving.certPem, keyPem: serving.keyPem, clientCaPem };
  // The listener has its own controller so a failure after it is up can stop it.
  const listener = new AbortController();
  const unlink = onAbort(signal, (reason) => listener.abort(reason));
  const http = await serveHttps(
    { bindAddress: c.bindAddress, port: c.securePort, tls, pipeline, log: log.child({ component: 'http' }), ...(deps.shutdownGraceMs === undefined ? {} : { shutdownGraceMs: deps.shutdownGraceMs }) },
    listener.signal,
  ).catch((e: unknown) => {
    unlink();
    throw e;
  });
  const stopped = http.stopped.finally(unlink);
  const url = serverUrl(c.bindAddress, http.port);
  if (adminToken !== undefined) {
    try {
      await writePlatformconfig(c.adminPlatformconfig, { server: url, caPem: serving.caPem, token: adminToken });
    } catch (e) {
      // The listener is up: stop it before reporting, so nothing runs after the failure.
      listener.abort(e);
      await stopped;
      throw e;
    }
    log.info('Wrote the admin platformconfig', { path: c.adminPlatformconfig, server: url });
  }
  log.info('platform-apiserver is serving', { url, gates: Object.entries(settings.gates).map(([k, v]) => `${k}=${String(v)}`).join(','), storage: c.etcdServers.length === 0 ? 'memory' : c.etcdServers.join(',') });
  return { url, port: http.port, caPem: serving.caPem, adminToken, stopped };
}
