// --rotate-certificates: the certificate manager of the agent's client
// certificate. Started by the composition root in API-server mode after the
// API client exists (after bootstrap). It sleeps until the current
// certificate's jittered deadline (70–90 % of its life, deadline.ts), then
// asks for a new one through the same client with a fresh key, writes the
// pair into --cert-dir, swaps `agent-client-current.pem` and hands the pair
// to the transport, whose new connections present it (no restart). A failed
// attempt (server down, request refused or unsigned) is logged once and
// retried with the manager's back-off (2 s doubling, then every 32 s); once
// the certificate has been expired for 5 minutes without a new one, run()
// rejects with ClientCertificateExpiredError (the kubelet exits then, so
// that its restart bootstraps). Nothing runs after the signal aborts.
import type { ApiClient } from '../client/index.js';
import { RESOURCES } from '../client/index.js';
import type { ClientLog } from '../client/types.js';
import { abortableSleep } from '../lifecycle/abort.js';
import { defineComponent, type Component } from '../lifecycle/component.js';
import { generateKeyPair, privateKeyPem } from '../pki/x509.js';
import { nodeClientCsr } from './csr.js';
import { RENEW_BACKOFF, RENEW_WAIT_MS, renewRetryDelayMs, rotationDeadline } from './deadline.js';
import { CLIENT_PAIR_PREFIX, certificateLifetime, pairPaths, type Lifetime } from './layout.js';
import { problemLog } from './log-once.js';
import { submitCsr, waitForCertificate } from './request.js';
import { readCurrentPair, writePair, type CertKeyPair } from './store.js';

export interface ClientRotationOptions {
  /** The agent's API client: requests go through it, and its transport takes the new certificate. */
  readonly client: Pick<ApiClient, 'rest' | 'transport' | 'connection'>;
  /** --cert-dir. */
  readonly certDir: string;
  readonly nodeName: string;
  readonly log: ClientLog;
  /** Test seams: the clock (ms), jitter in [0, 1), the abortable sleep, the signing wait. */
  readonly now?: () => number;
  readonly random?: () => number;
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly waitTimeoutMs?: number;
}

export interface ClientCertificateRotation extends Component {
  /** The lifetime of the certificate in use, once known (for status and tests). */
  current(): Lifetime | undefined;
}

/**
 * How long the agent runs on with an expired client certificate and no new
 * one before the rotation fails (and the agent exits, so that a restart
 * bootstraps again): the kubelet's 5 minutes (UpdateTransport's exitAfter).
 */
export const EXPIRED_EXIT_AFTER_MS = 300_000;

/** The client certificate expired and could not be renewed for EXPIRED_EXIT_AFTER_MS: fatal for the rotation. */
export class ClientCertificateExpiredError extends Error {
  constructor(
    readonly path: string,
    readonly notAfter: Date,
    cause: unknown,
  ) {
    super(`the client certificate (${path}) expired at ${notAfter.toISOString()} and could not be renewed for ${EXPIRED_EXIT_AFTER_MS / 60_000} minutes; a restart may be needed to bootstrap new credentials`, { cause });
    this.name = 'ClientCertificateExpiredError';
  }
}

/** The longest single sleep: timers cap at 2^31 ms, and a daily look catches a pair replaced by hand. */
const MAX_SLEEP_MS = 86_400_000;

export function createClientCertificateRotation(o: ClientRotationOptions): ClientCertificateRotation {
  const now = o.now ?? Date.now;
  const random = o.random ?? Math.random;
  const sleep = o.sleep ?? abortableSleep;
  const paths = pairPaths(o.certDir, CLIENT_PAIR_PREFIX);
  const problems = problemLog(o.log, 'Cannot rotate the client certificate; retrying');
  let lifetime: Lifetime | undefined;

  /** The pair in use: the cert dir's current one, else the platformconfig's. */
  async function currentPair(): Promise<CertKeyPair | undefined> {
    try {
      const p = await readCurrentPair(paths);
      if (p !== undefined) return p;
    } catch (e) {
      problems.problem(e, { certificate: paths.current });
    }
    return o.client.connection.clientCert;
  }

  async function renew(signal: AbortSignal): Promise<CertKeyPair> {
    const key = generateKeyPair();
    const csr = nodeClientCsr(o.nodeName, key);
    const csrs = o.client.rest.resource(RESOURCES.certificateSigningRequests);
    await submitCsr(csrs, csr, key.publicKey, signal);
    const cert = await waitForCertificate(csrs, csr.name, {
      signal,
      timeoutMs: o.waitTimeoutMs ?? RENEW_WAIT_MS,
      retryDelayMs: (n) => renewRetryDelayMs(n, random()),
      onProblem: (e) => problems.problem(e, { csr: csr.name }),
    });
    const pair = { cert, key: privateKeyPem(key.privateKey) };
    const file = await writePair(paths, o.certDir, pair, new Date(now()));
    o.log.info('Rotated the client certificate', { csr: csr.name, file });
    return pair;
  }

  return Object.assign(
    defineComponent('client-certificate-rotation', async (signal, markReady) => {
      markReady();
      let deadline: Date | undefined;
      let failures = 0;
      while (!signal.aborted) {
        const pair = await currentPair();
        if (pair === undefined) {
          o.log.warn('No client certificate to rotate: the platformconfig authenticates otherwise', { certDir: o.certDir });
          await sleep(2 ** 31 - 1, signal);
          continue;
        }
        let l: Lifetime;
        try {
          l = certificateLifetime(pair.cert);
        } catch (e) {
          problems.problem(new Error(`${paths.current}: the client certificate cannot be read: ${(e as Error).message}`));
          await sleep(RENEW_BACKOFF.pollMs, signal);
          continue;
        }
        if (lifetime === undefined || l.notAfter.getTime() !== lifetime.notAfter.getTime()) {
          lifetime = l;
          deadline = rotationDeadline(l, random());
          o.log.info('Client certificate rotation deadline', { expiration: l.notAfter.toISOString(), deadline: deadline.toISOString() });
        }
        const wait = (deadline?.getTime() ?? 0) - now();
        if (wait > 0) {
          await sleep(Math.min(wait, MAX_SLEEP_MS), signal);
          continue;
        }
        try {
          const renewed = await renew(signal);
          o.client.transport.setClientCertificate?.(renewed);
          problems.recovered();
          failures = 0;
        } catch (e) {
          if (signal.aborted) break;
          failures++;
          problems.problem(e, { expiration: lifetime.notAfter.toISOString() });
          if (now() - lifetime.notAfter.getTime() > EXPIRED_EXIT_AFTER_MS) throw new ClientCertificateExpiredError(paths.current, lifetime.notAfter, e);
          await sleep(renewRetryDelayMs(failures, random()), signal);
        }
      }
      throw signal.reason;
    }),
    { current: () => lifetime },
  );
}
