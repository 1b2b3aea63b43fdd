// --rotate-server-certificates: the certificate manager of the agent's
// serving certificate for port 10250 (the kubelet's
// NewKubeletServerCertificateManager). Started by the composition root in
// API-server mode, after the API client exists and before the main server
// listens. At start it serves `agent-server-current.pem` of --cert-dir while
// that is unexpired; it asks for a certificate (fresh ECDSA key, a CSR for
// signer platform.io/agent-serving naming the node's hostname and IPs) when
// there is none, when the node's names or addresses changed, or at the
// jittered 70–90 % deadline; an administrator approves the request (never
// auto-approved), the server signs it, the pair is written into --cert-dir
// (`agent-server-<ts>.pem`, the symlink swapped) and handed to every
// onRotate listener — the main server, which swaps its secure context for
// new connections. A failure (server down, request unsigned within 15 min,
// denied) is logged once and retried with the manager's back-off; the agent
// keeps serving the old certificate, even past its end. Nothing runs after
// the signal aborts.
import type { ApiClient } from '../client/index.js';
import { RESOURCES } from '../client/index.js';
import type { ClientLog } from '../client/types.js';
import { abortableSleep } from '../lifecycle/abort.js';
import { defineComponent, type Component } from '../lifecycle/component.js';
import { generateKeyPair, privateKeyPem } from '../pki/x509.js';
import { nodeClientSubject } from '../api/signers.js';
import { RENEW_WAIT_MS, renewRetryDelayMs, rotationDeadline } from './deadline.js';
import { SERVER_PAIR_PREFIX, certificateLifetime, clientCertificateValidity, pairPaths, type Lifetime } from './layout.js';
import { problemLog } from './log-once.js';
import { submitCsr, waitForCertificate } from './request.js';
import { certificateTemplate, nodeServingCsr, servingSans, servingStep, type StatusAddress } from './serving-csr.js';
import { readCurrentPair, writePair, type CertKeyPair } from './store.js';

export interface ServingRotationOptions {
  /** The agent's API client: the requests go through it. */
  readonly client: Pick<ApiClient, 'rest'>;
  /** --cert-dir. */
  readonly certDir: string;
  readonly nodeName: string;
  /** The node's status addresses now (node-status's computation); undefined or empty while unknown. Called at each look; must not block. */
  readonly addresses: () => readonly StatusAddress[] | undefined;
  readonly log: ClientLog;
  /** spec.expirationSeconds of each request; unset: the signer's --cluster-signing-duration. */
  readonly expirationSeconds?: number;
  /** Test seams: the clock (ms), jitter in [0, 1), the abortable sleep, the signing wait, the look at the addresses. */
  readonly now?: () => number;
  readonly random?: () => number;
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly waitTimeoutMs?: number;
  readonly addressCheckMs?: number;
}

/** The serving pair as the main server takes it: the current one, and a call on each new one. */
export interface ServingCertificateSource {
  /** The pair to serve now; undefined until the first is issued (handshakes fail meanwhile, as the kubelet's). */
  current(): CertKeyPair | undefined;
  /** Registers a listener of new pairs; returns its removal. Listeners run synchronously and must not throw. */
  onRotate(listener: (pair: CertKeyPair) => void): () => void;
}

export interface ServingCertificateRotation extends Component, ServingCertificateSource {
  /** The lifetime of the certificate in use, once known (for tests and status). */
  lifetime(): Lifetime | undefined;
}

/** How often the node's addresses are looked at between deadlines (a changed address asks for a new certificate). */
export const ADDRESS_CHECK_MS = 60_000;
/** The longest single sleep: timers cap at 2^31 ms. */
const MAX_SLEEP_MS = 86_400_000;

/**
 * Builds the rotation. `ready` resolves once the stored pair (if any) has
 * been read and handed to the listeners (so a main server that registered
 * before and listens after serves it from its first connection).
 */
export function createServingCertificateRotation(o: ServingRotationOptions): ServingCertificateRotation {
  const now = o.now ?? Date.now;
  const random = o.random ?? Math.random;
  const sleep = o.sleep ?? abortableSleep;
  const paths = pairPaths(o.certDir, SERVER_PAIR_PREFIX);
  const problems = problemLog(o.log, 'Cannot rotate the serving certificate; retrying');
  const listeners = new Set<(pair: CertKeyPair) => void>();
  const commonName = nodeClientSubject(o.nodeName).commonName;
  let pair: CertKeyPair | undefined;
  let current: { lifetime: Lifetime; template: ReturnType<typeof certificateTemplate> } | undefined;
  let deadlineMs: number | undefined;

  function use(p: CertKeyPair): void {
    const lifetime = certificateLifetime(p.cert);
    pair = p;
    current = { lifetime, template: certificateTemplate(p.cert) };
    deadlineMs = rotationDeadline(lifetime, random()).getTime();
    o.log.info('Serving certificate rotation deadline', { expiration: lifetime.notAfter.toISOString(), deadline: new Date(deadlineMs).toISOString() });
    for (const l of listeners) l(p);
  }

  /** The stored pair, when it exists, parses and has not expired (an expired one is asked again at once). */
  async function loadStored(): Promise<void> {
    try {
      const p = await readCurrentPair(paths);
      if (p === undefined) return;
      const v = clientCertificateValidity(p.cert, new Date(now()));
      if (!v.valid) {
        o.log.info('The stored serving certificate cannot be used; asking for a new one', { certificate: paths.current, reason: v.reason.replace('client certificate', 'certificate') });
        return;
      }
      use(p);
      o.log.info('Serving the stored serving certificate', { certificate: paths.current });
    } catch (e) {
      problems.problem(e, { certificate: paths.current });
    }
  }

  async function renew(signal: AbortSignal, want: ReturnType<typeof certificateTemplate>): Promise<CertKeyPair> {
    const key = generateKeyPair();
    const csr = nodeServingCsr(o.nodeName, key, want.sans, o.expirationSeconds);
    const csrs = o.client.rest.resource(RESOURCES.certificateSigningRequests);
    await submitCsr(csrs, csr, key.publicKey, signal);
    o.log.info('Waiting for the serving certificate request to be approved and signed', { csr: csr.name, dnsNames: want.sans.dnsNames.join(','), ipAddresses: want.sans.ipAddresses.join(',') });
    const cert = await waitForCertificate(csrs, csr.name, {
      signal,
      timeoutMs: o.waitTimeoutMs ?? RENEW_WAIT_MS,
      retryDelayMs: (n) => renewRetryDelayMs(n, random()),
      onProblem: (e) => problems.problem(e, { csr: csr.name }),
    });
    const p = { cert, key: privateKeyPem(key.privateKey) };
    const file = await writePair(paths, o.certDir, p, new Date(now()));
    o.log.info('Rotated the serving certificate', { csr: csr.name, file });
    return p;
  }

  const component = defineComponent('serving-certificate-rotation', async (signal, markReady) => {
    await loadStored();
    markReady();
    let failures = 0;
    let noAddresses = false;
    while (!signal.aborted) {
      const addrs = o.addresses();
      const sans = addrs === undefined ? undefined : servingSans(addrs);
      const want = sans === undefined || sans.dnsNames.length + sans.ipAddresses.length === 0 ? undefined : { commonName, sans };
      const step = servingStep({ current, want, deadlineMs, nowMs: now() });
      if (step.kind === 'no-addresses') {
        if (!noAddresses) o.log.info('No node address yet: the serving certificate is asked for once one is known');
        noAddresses = true;
        await sleep(o.addressCheckMs ?? ADDRESS_CHECK_MS, signal);
        continue;
      }
      noAddresses = false;
      if (step.kind === 'wait') {
        await sleep(Math.min(step.ms, o.addressCheckMs ?? ADDRESS_CHECK_MS, MAX_SLEEP_MS), signal);
        continue;
      }
      try {
        if (current === undefined && failures === 0) o.log.info('No serving certificate yet: TLS handshakes on the main port fail until the request is approved and signed');
        o.log.info('Requesting a serving certificate', { reason: step.reason });
        use(await renew(signal, want ?? current!.template));
        problems.recovered();
        failures = 0;
      } catch (e) {
        if (signal.aborted) break;
        failures++;
        problems.problem(e, { node: o.nodeName, ...(current === undefined ? {} : { expiration: current.lifetime.notAfter.toISOString() }) });
        await sleep(renewRetryDelayMs(failures, random()), signal);
      }
    }
    throw signal.reason;
  });

  return {
    name: component.name,
    ready: component.ready,
    run: (signal) => component.run(signal),
    current: () => pair,
    onRotate(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    lifetime: () => current?.lifetime,
  };
}
