// The agent's serving certificate request and the decisions of its
// rotation (--rotate-server-certificates), as the kubelet's
// NewKubeletServerCertificateManager and client-go's certificate manager make
// them: the names and addresses the certificate must cover (from the node's
// status addresses), the request's usages and object, whether the current
// certificate still fits, and what to do next. Pure: serving.ts carries the
// verdicts out.
import { X509Certificate, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { AGENT_SERVING_CSR_PREFIX, AGENT_SERVING_SIGNER, AGENT_SERVING_USAGES, AGENT_SERVING_USAGES_NO_RSA, nodeClientSubject } from '../api/signers.js';
import type { ApiObject } from '../client/types.js';
import { createCsrPem, digestedCsrName, type CsrSans, type NodeCsr } from './csr.js';
import { pemBlocks, type Lifetime } from './layout.js';

/** A node status address (`{type: 'Hostname' | 'InternalIP' | ..., address}`), as node-status computes them. */
export interface StatusAddress {
  readonly type: string;
  readonly address: string;
}

const DNS_TYPES = new Set(['Hostname', 'ExternalDNS', 'InternalDNS']);
const IP_TYPES = new Set(['InternalIP', 'ExternalIP']);

/** An IP in one spelling (IPv6 compressed, lower case), so `0:0:0:0:0:0:0:1` and `::1` compare equal; undefined for a non-IP. */
export function canonicalIp(text: string): string | undefined {
  const family = isIP(text);
  if (family === 4) return text;
  if (family !== 6) return undefined;
  return new URL(`http://[${text}]/`).hostname.slice(1, -1);
}

/**
 * The names and IPs a serving certificate covers: the kubelet's
 * addressesToHostnamesAndIPs — Hostname/ExternalDNS/InternalDNS addresses
 * as DNS names, InternalIP/ExternalIP as IPs (unparsable ones dropped), each
 * once, in status order.
 */
export function servingSans(addresses: readonly StatusAddress[]): CsrSans {
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  for (const a of addresses) {
    if (a.address === '') continue;
    if (DNS_TYPES.has(a.type) && !dnsNames.includes(a.address)) dnsNames.push(a.address);
    if (!IP_TYPES.has(a.type)) continue;
    const ip = canonicalIp(a.address);
    if (ip !== undefined && !ipAddresses.includes(ip)) ipAddresses.push(ip);
  }
  return { dnsNames, ipAddresses };
}

/** digital signature and server auth, plus key encipherment for an RSA key (the kubelet's order). */
export function nodeServingUsages(publicKey: KeyObject): readonly string[] {
  return publicKey.asymmetricKeyType === 'rsa' ? AGENT_SERVING_USAGES : AGENT_SERVING_USAGES_NO_RSA;
}

/**
 * The CertificateSigningRequest for the serving certificate of `nodeName`:
 * CN system:node:<name>, O system:nodes, the SANs, signer
 * platform.io/agent-serving; named `csr-<digest of key, subject, usages>`
 * (a fresh key per request, so a fresh name). Pure.
 */
export function nodeServingCsr(nodeName: string, key: { privateKey: KeyObject; publicKey: KeyObject }, sans: CsrSans, expirationSeconds?: number): NodeCsr {
  const subject = nodeClientSubject(nodeName);
  const usages = nodeServingUsages(key.publicKey);
  const requestPem = createCsrPem(subject, key.privateKey, key.publicKey, sans);
  const name = digestedCsrName(key.publicKey, subject, usages, AGENT_SERVING_CSR_PREFIX);
  const object: ApiObject = {
    apiVersion: 'certificates.platform.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: {
      request: Buffer.from(requestPem).toString('base64'),
      signerName: AGENT_SERVING_SIGNER,
      usages: [...usages],
      ...(expirationSeconds === undefined ? {} : { expirationSeconds }),
    },
  };
  return { name, requestPem, object };
}

/** The subject and SANs of the first certificate of `pem`; throws on a PEM that holds none or does not parse. */
export function certificateTemplate(pem: string): { commonName: string; sans: CsrSans } {
  const first = pemBlocks(pem, 'CERTIFICATE')[0];
  if (first === undefined) throw new TypeError('no CERTIFICATE block');
  const c = new X509Certificate(first);
  const commonName = /(?:^|\n)CN=([^\n]*)/.exec(c.subject)?.[1] ?? '';
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  for (const part of (c.subjectAltName ?? '').split(/,\s*/)) {
    if (part.startsWith('DNS:')) dnsNames.push(part.slice(4));
    else if (part.startsWith('IP Address:')) {
      const ip = canonicalIp(part.slice(11));
      if (ip !== undefined) ipAddresses.push(ip);
    }
  }
  return { commonName, sans: { dnsNames, ipAddresses } };
}

const sameSet = (a: readonly string[], b: readonly string[]): boolean => new Set(a).size === new Set(b).size && b.every((x) => a.includes(x));

/** Whether a certificate of `have` serves what `want` asks (client-go's certSatisfiesTemplate: same CN, same DNS and IP sets). */
export function satisfiesTemplate(have: { commonName: string; sans: CsrSans }, want: { commonName: string; sans: CsrSans }): boolean {
  return have.commonName === want.commonName && sameSet(have.sans.dnsNames, want.sans.dnsNames) && sameSet(have.sans.ipAddresses, want.sans.ipAddresses);
}

export interface ServingState {
  /** The certificate in use: its lifetime and what it covers; undefined when there is none. */
  readonly current: { readonly lifetime: Lifetime; readonly template: { commonName: string; sans: CsrSans } } | undefined;
  /** What it must cover now; undefined while the node's addresses are unknown. */
  readonly want: { commonName: string; sans: CsrSans } | undefined;
  /** The jittered rotation deadline of the current certificate (ms). */
  readonly deadlineMs: number | undefined;
  readonly nowMs: number;
}

export type ServingStep =
  | { readonly kind: 'renew'; readonly reason: string }
  | { readonly kind: 'wait'; readonly ms: number }
  /** No address to ask a certificate for yet (the kubelet asks nothing then): look again later. */
  | { readonly kind: 'no-addresses' };

/**
 * What the rotation does next: ask for a certificate when there is none, when
 * the names or addresses changed (the kubelet rotates on a template change
 * too) or when the deadline passed; else sleep until the deadline.
 */
export function servingStep(s: ServingState): ServingStep {
  if (s.want === undefined || s.want.sans.dnsNames.length + s.want.sans.ipAddresses.length === 0) {
    if (s.current === undefined) return { kind: 'no-addresses' };
  } else {
    if (s.current === undefined) return { kind: 'renew', reason: 'no serving certificate yet' };
    if (!satisfiesTemplate(s.current.template, s.want)) return { kind: 'renew', reason: 'the node names or addresses changed' };
  }
  const deadline = s.deadlineMs ?? s.nowMs;
  if (deadline <= s.nowMs) return { kind: 'renew', reason: 'the rotation deadline passed' };
  return { kind: 'wait', ms: deadline - s.nowMs };
}

/** What the flag's neighbours decide about --rotate-server-certificates. */
export interface ServingRotationInputs {
  readonly serverTLSBootstrap: boolean;
  readonly enableServer: boolean;
  readonly tlsCertFile: string;
  readonly tlsPrivateKeyFile: string;
  /** API-server mode (--platformconfig given): a client to ask with. */
  readonly apiServer: boolean;
}

/**
 * Whether the serving certificate is requested from the API server, and
 * else what to warn: standalone there is no one to ask (the flag is ignored,
 * the self-signed certificate served); an operator's --tls-cert-file or
 * --tls-private-key-file wins. Pure; the composition root logs the warning once.
 */
export function servingRotationDecision(i: ServingRotationInputs): { rotate: boolean; warning: string | undefined } {
  if (!i.serverTLSBootstrap || !i.enableServer) return { rotate: false, warning: undefined };
  if (i.tlsCertFile !== '' || i.tlsPrivateKeyFile !== '') return { rotate: false, warning: '--rotate-server-certificates: --tls-cert-file and --tls-private-key-file are given and win; the serving certificate is not requested from the API server' };
  if (!i.apiServer) return { rotate: false, warning: '--rotate-server-certificates: no API server to ask (standalone: no --platformconfig); ignored, the main port serves a self-signed certificate' };
  return { rotate: true, warning: undefined };
}
