// Posting a node's CertificateSigningRequest and waiting for its
// certificate, as client-go's csr.RequestCertificate + WaitForCertificate:
// an existing request of the same (digested) name is reused when it carries
// the same key and signer; the wait reads the object, then watches it, again
// after every dropped watch or failed read (with back-off), until it is
// issued, denied or failed, the deadline passes or the signal aborts.
// Called by bootstrap.ts and rotation.ts; blocks for as long as the signer
// takes (bounded by `timeoutMs`).
import { createPublicKey, type KeyObject } from 'node:crypto';
import { CertificationRequest } from '@peculiar/asn1-csr';
import { AsnConvert } from '@peculiar/asn1-schema';
import { isAlreadyExists, isNotFound } from '../api/errors.js';
import { abortableSleep, onAbort } from '../lifecycle/abort.js';
import type { ApiObject, ResourceClient } from '../client/types.js';
import type { NodeCsr } from './csr.js';

export type CsrClient = Pick<ResourceClient, 'create' | 'get' | 'watch'>;

export type CsrRequestProblem = 'Denied' | 'Failed' | 'Incompatible' | 'Timeout' | 'Deleted';

/** Why no certificate came of a request; `csr` names the object, `field` the part that says so. */
export class CertificateRequestError extends Error {
  constructor(
    readonly csr: string,
    readonly problem: CsrRequestProblem,
    readonly field: string,
    message: string,
  ) {
    super(`certificatesigningrequest ${csr}: ${message}`);
    this.name = 'CertificateRequestError';
  }
}

export type CsrOutcome =
  | { state: 'pending' }
  | { state: 'issued'; certificate: string }
  | { state: 'denied' | 'failed'; reason: string; message: string };

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Rec) : {});

/** What a CSR object says about its certificate (client-go's wait condition). Pure. */
export function csrOutcome(obj: ApiObject): CsrOutcome {
  const status = rec(obj.status);
  const conditions = Array.isArray(status.conditions) ? status.conditions.map(rec) : [];
  for (const c of conditions) {
    if (c.status !== 'True' && c.status !== undefined) continue;
    const detail = { reason: typeof c.reason === 'string' ? c.reason : '', message: typeof c.message === 'string' ? c.message : '' };
    if (c.type === 'Denied') return { state: 'denied', ...detail };
    if (c.type === 'Failed') return { state: 'failed', ...detail };
  }
  const approved = conditions.some((c) => c.type === 'Approved' && (c.status === 'True' || c.status === undefined));
  const cert = status.certificate;
  if (approved && typeof cert === 'string' && cert !== '') return { state: 'issued', certificate: Buffer.from(cert, 'base64').toString('utf8') };
  return { state: 'pending' };
}

/** The public key of a CSR object's spec.request (base64 of a PEM request); undefined when it cannot be read. */
function requestPublicKey(obj: ApiObject): KeyObject | undefined {
  try {
    const pem = Buffer.from(String(rec(obj.spec).request ?? ''), 'base64').toString('latin1');
    const m = /-----BEGIN CERTIFICATE REQUEST-----([\s\S]*?)-----END CERTIFICATE REQUEST-----/.exec(pem);
    if (m === null) return undefined;
    const req = AsnConvert.parse(Buffer.from(m[1]!.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64'), CertificationRequest);
    return createPublicKey({ key: Buffer.from(AsnConvert.serialize(req.certificationRequestInfo.subjectPKInfo)), format: 'der', type: 'spki' });
  } catch {
    return undefined;
  }
}

/**
 * Creates the request; when one of that name exists already (a restart with
 * the same key), uses it if it asks for the same signer with the same key,
 * else throws CertificateRequestError 'Incompatible'. Other errors propagate
 * (the caller retries).
 */
export async function submitCsr(csrs: CsrClient, csr: NodeCsr, publicKey: KeyObject, signal: AbortSignal): Promise<void> {
  try {
    await csrs.create(csr.object, { signal });
    return;
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
  const existing = await csrs.get(csr.name, { signal });
  const want = rec(csr.object.spec).signerName;
  if (rec(existing.spec).signerName !== want) throw new CertificateRequestError(csr.name, 'Incompatible', 'spec.signerName', `exists with signer ${String(rec(existing.spec).signerName)}, not ${String(want)}`);
  const key = requestPublicKey(existing);
  if (key === undefined || !key.equals(publicKey)) throw new CertificateRequestError(csr.name, 'Incompatible', 'spec.request', 'exists with a different public key');
}

export interface WaitOptions {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /** The pause after the n-th failed read or watch (n from 1). */
  readonly retryDelayMs: (failures: number) => number;
  /** Called once per distinct failure text (the caller logs it once). */
  readonly onProblem: (err: unknown) => void;
}

function settled(name: string, o: CsrOutcome): string | undefined {
  if (o.state === 'issued') return o.certificate;
  if (o.state === 'denied') throw new CertificateRequestError(name, 'Denied', 'status.conditions', `the certificate signing request was denied: reason ${JSON.stringify(o.reason)}, message ${JSON.stringify(o.message)}`);
  if (o.state === 'failed') throw new CertificateRequestError(name, 'Failed', 'status.conditions', `the certificate signing request failed: reason ${JSON.stringify(o.reason)}, message ${JSON.stringify(o.message)}`);
  return undefined;
}

/** The issued certificate's PEM. Rejects with CertificateRequestError (denied, failed, deleted, timed out) or the signal's reason. */
export async function waitForCertificate(csrs: CsrClient, name: string, o: WaitOptions): Promise<string> {
  const ac = new AbortController();
  const unlink = onAbort(o.signal, (r) => ac.abort(r));
  const timer = setTimeout(() => ac.abort(new CertificateRequestError(name, 'Timeout', 'status.certificate', `no certificate within ${Math.round(o.timeoutMs / 1000)} s`)), o.timeoutMs);
  let failures = 0;
  try {
    for (;;) {
      try {
        const obj = await csrs.get(name, { signal: ac.signal });
        const got = settled(name, csrOutcome(obj));
        if (got !== undefined) return got;
        const rv = String(rec(obj.metadata).resourceVersion ?? '');
        const w = await csrs.watch({ fieldSelector: `metadata.name=${name}`, ...(rv === '' ? {} : { resourceVersion: rv }), timeoutSeconds: 300, signal: ac.signal });
        try {
          for await (const ev of w) {
            if (ev.type === 'DELETED') throw new CertificateRequestError(name, 'Deleted', 'metadata.name', 'the certificate signing request was deleted while waiting for its certificate');
            if (ev.type === 'BOOKMARK') continue;
            const issued = settled(name, csrOutcome(ev.object));
            if (issued !== undefined) return issued;
          }
        } finally {
          w.close();
        }
        failures = 0;
      } catch (e) {
        if (ac.signal.aborted) throw ac.signal.reason;
        if (e instanceof CertificateRequestError) throw e;
        if (isNotFound(e)) throw new CertificateRequestError(name, 'Deleted', 'metadata.name', 'the certificate signing request no longer exists');
        failures++;
        o.onProblem(e);
        await abortableSleep(o.retryDelayMs(failures), ac.signal);
      }
    }
  } finally {
    clearTimeout(timer);
    unlink();
  }
}
