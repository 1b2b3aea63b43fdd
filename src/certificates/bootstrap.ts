// TLS bootstrap (the kubelet's LoadClientCert): run once by the composition
// root before the API client is built, in API-server mode with
// --bootstrap-platformconfig. Does nothing when --platformconfig holds a
// client certificate that has not expired. Else it reuses a still-valid
// `agent-client-current.pem` of --cert-dir, or asks for a new certificate
// with the bootstrap credential: key in `agent-client.key.tmp` (kept until
// the request is signed, so a restart asks again under the same CSR name),
// a CertificateSigningRequest for the node client signer, a wait of up to an
// hour for the certificate. It then writes the pair into --cert-dir and a
// platformconfig pointing at it. Blocks until then; the server being down
// is logged once and retried with back-off; rejects with the signal's
// reason, a CertificateRequestError (denied, failed, timed out) or a
// ClientConfigError (unusable bootstrap platformconfig).
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { isApiError } from '../api/errors.js';
import { createApiClient, RESOURCES, type ApiClient } from '../client/index.js';
import { loadPlatformConfig } from '../client/config/index.js';
import type { ClientLog } from '../client/types.js';
import { abortableSleep } from '../lifecycle/abort.js';
import { writeAtomic } from '../pki/files.js';
import { privateKeyPem } from '../pki/x509.js';
import { nodeClientCsr } from './csr.js';
import { BOOTSTRAP_WAIT_MS, renewRetryDelayMs } from './deadline.js';
import { CLIENT_PAIR_PREFIX, clientCertificateValidity, pairPaths, type PairPaths } from './layout.js';
import { problemLog } from './log-once.js';
import { nodePlatformConfig } from './platformconfig.js';
import { CertificateRequestError, submitCsr, waitForCertificate } from './request.js';
import { loadOrGenerateKey, readCurrentPair, removeKeyTmp, writePair } from './store.js';

export interface BootstrapOptions {
  /** --platformconfig: checked, and written on success. */
  readonly platformconfig: string;
  /** --bootstrap-platformconfig; '' means no bootstrap (nothing is done). */
  readonly bootstrapPlatformconfig: string;
  /** --cert-dir. */
  readonly certDir: string;
  readonly nodeName: string;
  readonly log: ClientLog;
  readonly signal: AbortSignal;
  /** Test seams. */
  readonly now?: () => number;
  readonly random?: () => number;
  readonly waitTimeoutMs?: number;
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Builds the client of the bootstrap credential (default: createApiClient over JSON at the spec's default rates). */
  readonly bootstrapClient?: (platformconfig: string) => Promise<ApiClient>;
}

/** Whether --platformconfig can be used as it is, and why not. Never throws. */
export async function platformConfigValidity(platformconfig: string, now: Date): Promise<{ valid: true } | { valid: false; reason: string }> {
  let cert: string | undefined;
  try {
    cert = (await loadPlatformConfig(platformconfig)).clientCert?.cert;
  } catch (e) {
    return { valid: false, reason: e instanceof Error ? e.message : String(e) };
  }
  const v = clientCertificateValidity(cert, now);
  return v.valid ? { valid: true } : v;
}

async function writeConfig(o: BootstrapOptions, paths: PairPaths): Promise<void> {
  const bootstrap = await loadPlatformConfig(o.bootstrapPlatformconfig);
  const file = resolve(o.platformconfig);
  await mkdir(dirname(file), { recursive: true });
  await writeAtomic(file, nodePlatformConfig(bootstrap, paths.current), 0o600);
  o.log.info('Wrote the platformconfig for the client certificate', { platformconfig: file, certificate: paths.current });
}

const defaultClient = (log: ClientLog) => (platformconfig: string): Promise<ApiClient> =>
  createApiClient({ platformconfig, platformApiQps: 0, platformApiBurst: 0, eventQps: 0, eventBurst: 0, contentType: 'application/json', log });

/** See the file comment. Idempotent: a second call after success is a no-op. */
export async function bootstrapClientCertificate(o: BootstrapOptions): Promise<void> {
  const now = o.now ?? Date.now;
  if (o.bootstrapPlatformconfig === '') return;
  const current = await platformConfigValidity(o.platformconfig, new Date(now()));
  if (current.valid) {
    o.log.v?.(2)?.info('The platformconfig holds a valid client certificate: no bootstrap', { platformconfig: o.platformconfig });
    return;
  }
  o.log.info('Using the bootstrap platformconfig to request a client certificate', { platformconfig: o.platformconfig, reason: current.reason, bootstrapPlatformconfig: o.bootstrapPlatformconfig });
  const paths = pairPaths(o.certDir, CLIENT_PAIR_PREFIX);
  const pair = await readCurrentPair(paths).catch(() => undefined);
  if (pair !== undefined && clientCertificateValidity(pair.cert, new Date(now())).valid) {
    o.log.info('Using the existing client certificate of the certificate directory', { certificate: paths.current });
    await writeConfig(o, paths);
    return;
  }
  const key = await loadOrGenerateKey(paths, o.certDir);
  const csr = nodeClientCsr(o.nodeName, key);
  const client = await (o.bootstrapClient ?? defaultClient(o.log))(o.bootstrapPlatformconfig);
  const csrs = client.rest.resource(RESOURCES.certificateSigningRequests);
  const problems = problemLog(o.log, 'Cannot request the client certificate; retrying');
  const random = o.random ?? Math.random;
  const started = now();
  const timeoutMs = o.waitTimeoutMs ?? BOOTSTRAP_WAIT_MS;
  let cert: string;
  try {
    for (let failures = 1; ; failures++) {
      try {
        await submitCsr(csrs, csr, key.publicKey, o.signal);
        break;
      } catch (e) {
        if (o.signal.aborted) throw o.signal.reason;
        // A request the server refuses as malformed will be refused again: no retry.
        if (e instanceof CertificateRequestError || (isApiError(e) && (e.code === 400 || e.code === 422))) throw e;
        problems.problem(e, { csr: csr.name });
        if (now() - started > timeoutMs) throw new CertificateRequestError(csr.name, 'Timeout', 'metadata.name', `could not be created within ${Math.round(timeoutMs / 1000)} s: ${(e as Error).message}`);
        await (o.sleep ?? abortableSleep)(renewRetryDelayMs(failures, random()), o.signal);
      }
    }
    problems.recovered({ csr: csr.name });
    o.log.info('Waiting for the client certificate to be signed', { csr: csr.name, node: o.nodeName });
    cert = await waitForCertificate(csrs, csr.name, {
      signal: o.signal,
      timeoutMs: Math.max(1, timeoutMs - (now() - started)),
      retryDelayMs: (n) => renewRetryDelayMs(n, random()),
      onProblem: (e) => problems.problem(e, { csr: csr.name }),
    });
  } catch (e) {
    // A refused request will not be signed later: the next start asks with a new key, under a new name.
    if (e instanceof CertificateRequestError && e.problem !== 'Timeout') await removeKeyTmp(paths);
    throw e;
  } finally {
    await client.close();
  }
  const file = await writePair(paths, o.certDir, { cert, key: privateKeyPem(key.privateKey) }, new Date(now()));
  await removeKeyTmp(paths);
  o.log.info('Client certificate issued', { csr: csr.name, file });
  await writeConfig(o, paths);
}
