// The decisions of the node client CSR approver and of the node client and
// agent serving signers, as kube-controller-manager's csrapproving and
// csrsigning controllers make them (pkg/apis/certificates/helpers.go
// ValidateKubeletClientCSR and ValidateKubeletServingCSR,
// approver/sarapprove.go, signer/signer.go, authority/policies.go), renamed.
// Pure: the controller (csr-controller.ts) feeds them the stored CSR and
// the parsed request and carries out the verdict.
import { KeyUsageFlags } from '@peculiar/asn1-x509';
import { AGENT_SERVING_SIGNER, AGENT_SERVING_USAGES, AGENT_SERVING_USAGES_NO_RSA, NODE_CLIENT_SIGNER, NODE_CLIENT_USAGES, NODE_CLIENT_USAGES_NO_RSA, NODE_USER_PREFIX, NODES_GROUP } from '../../api/signers.js';

/** What the rules read of a stored CertificateSigningRequest. */
export interface CsrView {
  signerName: string;
  usages: readonly string[];
  /** spec.expirationSeconds; undefined when not requested. */
  expirationSeconds: number | undefined;
  /** The requester (spec.username), stamped by the server at create. */
  username: string;
  approved: boolean;
  denied: boolean;
  failed: boolean;
  /** status.certificate is set. */
  issued: boolean;
}

/** What the rules read of the parsed PKCS#10 request. */
export interface RequestView {
  commonName: string;
  organizations: readonly string[];
  dnsNames: readonly string[];
  ipAddresses: readonly string[];
  emailAddresses: readonly string[];
  uris: readonly string[];
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The rule-relevant view of a CSR object (as the registry stores it: JSON, spec.request base64). */
export function csrView(obj: { readonly [field: string]: unknown }): CsrView {
  const spec = isRec(obj.spec) ? obj.spec : {};
  const status = isRec(obj.status) ? obj.status : {};
  const conds = Array.isArray(status.conditions) ? status.conditions.filter(isRec) : [];
  const isTrue = (type: string): boolean => conds.some((c) => c.type === type && c.status === 'True');
  return {
    signerName: typeof spec.signerName === 'string' ? spec.signerName : '',
    usages: Array.isArray(spec.usages) ? spec.usages.filter((u): u is string => typeof u === 'string') : [],
    expirationSeconds: typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : undefined,
    username: typeof spec.username === 'string' ? spec.username : '',
    approved: isTrue('Approved'),
    denied: isTrue('Denied'),
    failed: isTrue('Failed'),
    issued: typeof status.certificate === 'string' && status.certificate !== '',
  };
}

const sameSet = (a: readonly string[], b: readonly string[]): boolean => {
  const sa = new Set(a);
  return sa.size === new Set(b).size && b.every((x) => sa.has(x));
};

/** Why a request is not a node client certificate request (upstream's messages), or undefined when it is. */
export function nodeClientProblem(req: RequestView, usages: readonly string[]): string | undefined {
  if (req.organizations.length !== 1 || req.organizations[0] !== NODES_GROUP) return `subject organization is not ${NODES_GROUP}`;
  if (req.dnsNames.length > 0) return 'DNS subjectAltNames are not allowed';
  if (req.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (req.ipAddresses.length > 0) return 'IP subjectAltNames are not allowed';
  if (req.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!req.commonName.startsWith(NODE_USER_PREFIX)) return `subject common name does not begin with ${NODE_USER_PREFIX}`;
  if (!sameSet(usages, NODE_CLIENT_USAGES) && !sameSet(usages, NODE_CLIENT_USAGES_NO_RSA)) return `usages did not match [${[...NODE_CLIENT_USAGES].sort().join(' ')}]`;
  return undefined;
}

/**
 * Why a request is not an agent serving certificate request (upstream's
 * ValidateKubeletServingCSR, in its order and words), or undefined when it is.
 */
export function agentServingProblem(req: RequestView, usages: readonly string[]): string | undefined {
  if (req.organizations.length !== 1 || req.organizations[0] !== NODES_GROUP) return `subject organization is not ${NODES_GROUP}`;
  if (req.dnsNames.length === 0 && req.ipAddresses.length === 0) return 'DNS or IP subjectAltName is required';
  if (req.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (req.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!sameSet(usages, AGENT_SERVING_USAGES) && !sameSet(usages, AGENT_SERVING_USAGES_NO_RSA)) return `usages did not match [${[...AGENT_SERVING_USAGES].sort().join(' ')}]`;
  if (!req.commonName.startsWith(NODE_USER_PREFIX)) return `subject common name does not begin with ${NODE_USER_PREFIX}`;
  return undefined;
}

/**
 * Why the signer refuses to sign an approved CSR of `signer`, or undefined.
 * Beyond upstream, a serving certificate is signed only for the node that
 * asked for it (spec.username equals the subject's CN): an approval given to
 * the wrong request must not hand a node another node's name.
 */
export function signingProblem(csr: CsrView, req: RequestView): string | undefined {
  if (csr.signerName === NODE_CLIENT_SIGNER) return nodeClientProblem(req, csr.usages);
  if (csr.signerName !== AGENT_SERVING_SIGNER) return `signer ${csr.signerName} is not served here`;
  const problem = agentServingProblem(req, csr.usages);
  if (problem !== undefined) return problem;
  if (csr.username !== req.commonName) return `the requester ${JSON.stringify(csr.username)} is not the node named in the subject (${req.commonName})`;
  return undefined;
}

/** One permission that, held by the requester, approves the CSR. */
export interface ApprovalCheck {
  /** The subresource of certificatesigningrequests the requester needs `create` on. */
  subresource: 'selfnodeclient' | 'nodeclient';
  message: string;
}

const SELF_CHECK: ApprovalCheck = { subresource: 'selfnodeclient', message: 'Auto approving self agent client certificate after SubjectAccessReview.' };
const NODE_CHECK: ApprovalCheck = { subresource: 'nodeclient', message: 'Auto approving agent client certificate after SubjectAccessReview.' };

/**
 * The permissions to ask, in order, for a CSR with no decision yet: a node
 * renewing its own certificate (requester = the CN) may be approved through
 * selfnodeclient, then anyone through nodeclient. Empty: not ours to approve.
 */
export function approvalChecks(csr: CsrView, req: RequestView): ApprovalCheck[] {
  if (csr.signerName !== NODE_CLIENT_SIGNER || csr.issued || csr.approved || csr.denied) return [];
  if (nodeClientProblem(req, csr.usages) !== undefined) return [];
  return csr.username === req.commonName ? [SELF_CHECK, NODE_CHECK] : [NODE_CHECK];
}

/** Whether the signer acts on the CSR: approved, of one of `signers` (default: the node client signer), not denied, failed or issued yet. */
export function wantsSigning(csr: CsrView, signers: readonly string[] = [NODE_CLIENT_SIGNER]): boolean {
  return signers.includes(csr.signerName) && csr.approved && !csr.denied && !csr.failed && !csr.issued;
}

/** kube-controller-manager's --cluster-signing-duration default: one year. */
export const DEFAULT_SIGNING_DURATION_MS = 8760 * 3_600_000;
/** Upstream backdates notBefore by 5 minutes for clock skew... */
export const BACKDATE_MS = 5 * 60_000;
/** ...and not notAfter of a certificate shorter than 8 hours (5 minutes is ~1% of that). */
export const SHORT_MS = 8 * 3_600_000;
/** The least validity granted, whatever was asked (twice the backdate). */
export const MIN_DURATION_MS = 10 * 60_000;

/** The validity asked for: spec.expirationSeconds within [10 min, the signing duration]; the signing duration when not asked. */
export function certificateDurationMs(expirationSeconds: number | undefined, signingDurationMs: number): number {
  if (expirationSeconds === undefined) return signingDurationMs;
  const asked = expirationSeconds * 1000;
  if (asked > signingDurationMs) return signingDurationMs;
  return Math.max(asked, MIN_DURATION_MS);
}

/** notBefore/notAfter of a certificate signed now (upstream's PermissiveSigningPolicy), or why the CA cannot sign. */
export function certificateWindow(now: number, durationMs: number, caNotAfter: number): { notBefore: Date; notAfter: Date } | { error: string } {
  const notBefore = now - BACKDATE_MS;
  let notAfter = durationMs < SHORT_MS ? now + durationMs : now + durationMs - BACKDATE_MS;
  if (notAfter >= caNotAfter) notAfter = caNotAfter;
  if (notBefore >= caNotAfter || now >= caNotAfter) return { error: `the signer has expired: NotAfter=${new Date(caNotAfter).toISOString()}` };
  return { notBefore: new Date(notBefore), notAfter: new Date(notAfter) };
}

const KEY_USAGE: Readonly<Record<string, number>> = {
  signing: KeyUsageFlags.digitalSignature,
  'digital signature': KeyUsageFlags.digitalSignature,
  'content commitment': KeyUsageFlags.nonRepudiation,
  'key encipherment': KeyUsageFlags.keyEncipherment,
  'key agreement': KeyUsageFlags.keyAgreement,
  'data encipherment': KeyUsageFlags.dataEncipherment,
  'cert sign': KeyUsageFlags.keyCertSign,
  'crl sign': KeyUsageFlags.cRLSign,
  'encipher only': KeyUsageFlags.encipherOnly,
  'decipher only': KeyUsageFlags.decipherOnly,
};

/** Extended key usages in Go's ExtKeyUsage order (the order they are written in). */
const EXT_KEY_USAGE: ReadonlyArray<[string, string]> = [
  ['any', '2.5.29.37.0'],
  ['server auth', '1.3.6.1.5.5.7.3.1'],
  ['client auth', '1.3.6.1.5.5.7.3.2'],
  ['code signing', '1.3.6.1.5.5.7.3.3'],
  ['email protection', '1.3.6.1.5.5.7.3.4'],
  ['s/mime', '1.3.6.1.5.5.7.3.4'],
  ['ipsec end system', '1.3.6.1.5.5.7.3.5'],
  ['ipsec tunnel', '1.3.6.1.5.5.7.3.6'],
  ['ipsec user', '1.3.6.1.5.5.7.3.7'],
  ['timestamping', '1.3.6.1.5.5.7.3.8'],
  ['ocsp signing', '1.3.6.1.5.5.7.3.9'],
  ['microsoft sgc', '1.3.6.1.4.1.311.10.3.3'],
  ['netscape sgc', '2.16.840.1.113730.4.1'],
];

/** The key usage bits and extended key usage OIDs for spec.usages, or upstream's error for unknown values. */
export function usageExtensions(usages: readonly string[]): { keyUsage: number; extended: string[] } | { error: string } {
  let keyUsage = 0;
  const unknown: string[] = [];
  const ext = new Set<string>();
  for (const u of usages) {
    const bit = KEY_USAGE[u];
    const oid = EXT_KEY_USAGE.find(([name]) => name === u)?.[1];
    if (bit !== undefined) keyUsage |= bit;
    else if (oid !== undefined) ext.add(oid);
    else unknown.push(u);
  }
  if (unknown.length > 0) return { error: `unrecognized usage values: [${unknown.map((u) => JSON.stringify(u)).join(' ')}]` };
  const order = EXT_KEY_USAGE.map(([, oid]) => oid);
  return { keyUsage, extended: [...ext].sort((a, b) => order.indexOf(a) - order.indexOf(b)) };
}

/** A status condition as the controllers add it (Approved by the approver, Failed by the signer). */
export function condition(type: 'Approved' | 'Failed', reason: string, message: string, now: Date): Rec {
  const t = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return { type, status: 'True', reason, message, lastUpdateTime: t, lastTransitionTime: t };
}
