// --csr-signing: kube-controller-manager's csrapproving and csrsigning
// controllers for the node client signer and the agent serving signer, in
// one (the serving signer is never auto-approved: an administrator approves
// through the approval subresource). A watch on
// certificatesigningrequests queues each CSR by name; syncing one reads it
// fresh and either approves it (the requester passes a SubjectAccessReview
// against the server's own authorizer: create on
// certificatesigningrequests/selfnodeclient or /nodeclient), or signs an
// approved one with the cluster signing CA and writes status.certificate, or
// marks one it cannot sign Failed. Writes go through the store's approval and
// status subresources, so the CSR rules hold for them as for any client.
// Syncing is idempotent: a CSR already decided or issued is left alone.
// One way to start (run(signal)), stopped by the abort; nothing runs after.
import { isNotFound } from '../../api/errors.js';
import { AGENT_SERVING_SIGNER, NODE_CLIENT_SIGNER } from '../../api/signers.js';
import { issueCertificate } from '../../pki/x509.js';
import type { ApiObject } from '../registry/types.js';
import type { UpdateOptions } from '../registry/types.js';
import type { Authorizer, UserInfo } from '../types.js';
import { approvalChecks, certificateDurationMs, certificateWindow, condition, csrView, signingProblem, usageExtensions, wantsSigning, type CsrView } from './csr-rules.js';
import { CsrParseError, parseCsr, type ParsedCsr } from './pkcs10.js';
import type { SigningCa } from './signing-ca.js';
import { runWatchLoop, type WatchSource } from './watch-loop.js';
import { WorkQueue } from './work-queue.js';

const CERTIFICATES_GROUP = 'certificates.platform.io';

/** The part of the certificatesigningrequests store the controller uses. */
export interface CsrStore extends WatchSource {
  get(namespace: string, name: string): Promise<ApiObject>;
  update(namespace: string, name: string, body: ApiObject, opts: UpdateOptions): Promise<unknown>;
}

export interface ControllerLog {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
}

export interface CsrControllerDeps {
  store: CsrStore;
  /** The server's authorizer chain (what SubjectAccessReview asks). */
  authorizer: Authorizer;
  ca: SigningCa;
  /** --cluster-signing-duration: the longest validity granted. */
  signingDurationMs: number;
  /** The signers it approves (node client only) and signs; default: the node client signer alone. */
  signers?: readonly string[];
  log: ControllerLog;
  now?: () => number;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The requester recorded at create (spec.username/uid/groups/extra): the subject of the review. */
function requester(spec: Rec): UserInfo {
  const extra: Record<string, string[]> = {};
  if (isRec(spec.extra)) for (const [k, v] of Object.entries(spec.extra)) extra[k] = strings(v);
  return { name: typeof spec.username === 'string' ? spec.username : '', uid: typeof spec.uid === 'string' ? spec.uid : '', groups: strings(spec.groups), extra };
}

export class CsrController {
  readonly #d: CsrControllerDeps;
  readonly #now: () => number;
  readonly #signers: readonly string[];

  constructor(deps: CsrControllerDeps) {
    this.#d = deps;
    this.#now = deps.now ?? Date.now;
    this.#signers = deps.signers ?? [NODE_CLIENT_SIGNER];
  }

  async run(signal: AbortSignal): Promise<void> {
    const queue = new WorkQueue((name, s) => this.sync(name, s), this.#d.log);
    await Promise.all([
      queue.run(signal),
      runWatchLoop(this.#d.store, (type, obj) => {
        if (type !== 'DELETED') queue.add(obj.metadata.name ?? '');
      }, this.#d.log, signal),
    ]);
  }

  /** Brings one CSR forward by one step (approve, sign or fail). Idempotent; throws to be retried. */
  async sync(name: string, signal: AbortSignal): Promise<void> {
    let obj: ApiObject;
    try {
      obj = await this.#d.store.get('', name);
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
    if (signal.aborted) return;
    const view = csrView(obj);
    if (!this.#signers.includes(view.signerName)) return;
    const wants = wantsSigning(view, this.#signers);
    if (!wants && (view.approved || view.denied || view.issued)) return;
    const spec = isRec(obj.spec) ? obj.spec : {};
    let parsed: ParsedCsr;
    try {
      parsed = parseCsr(Buffer.from(typeof spec.request === 'string' ? spec.request : '', 'base64').toString('latin1'));
    } catch (e) {
      if (!(e instanceof CsrParseError)) throw e;
      if (wants) await this.#fail(obj, 'SignerValidationFailure', e.message);
      return;
    }
    if (!view.approved) return view.signerName === NODE_CLIENT_SIGNER ? this.#approve(obj, view, parsed) : undefined;
    if (wants) return this.#sign(obj, view, parsed);
  }

  async #approve(obj: ApiObject, view: CsrView, parsed: ParsedCsr): Promise<void> {
    const name = obj.metadata.name ?? '';
    const user = requester(isRec(obj.spec) ? obj.spec : {});
    const tried: string[] = [];
    for (const check of approvalChecks(view, parsed)) {
      tried.push(check.subresource);
      const d = await this.#d.authorizer.authorize({ user, verb: 'create', isResourceRequest: true, path: '', apiGroup: CERTIFICATES_GROUP, apiVersion: '*', namespace: '', resource: 'certificatesigningrequests', subresource: check.subresource, name: '' });
      if (!d.allowed) continue;
      const status = isRec(obj.status) ? obj.status : {};
      const conditions = Array.isArray(status.conditions) ? status.conditions : [];
      const body: ApiObject = { ...obj, status: { ...status, conditions: [...conditions, condition('Approved', 'AutoApproved', check.message, new Date(this.#now()))] } };
      await this.#d.store.update('', name, body, { subresource: 'approval' });
      this.#d.log.info('Approved a node client certificate request', { csr: name, requester: user.name, permission: check.subresource });
      return;
    }
    if (tried.length > 0) this.#d.log.info('Recognized a node client certificate request but the subject access review was not approved', { csr: name, requester: user.name, tried: tried.join(',') });
  }

  async #sign(obj: ApiObject, view: CsrView, parsed: ParsedCsr): Promise<void> {
    const name = obj.metadata.name ?? '';
    const problem = signingProblem(view, parsed);
    if (problem !== undefined) return this.#fail(obj, 'SignerValidationFailure', problem);
    const usages = usageExtensions(view.usages);
    if ('error' in usages) return this.#fail(obj, 'SignerValidationFailure', usages.error);
    const ca = this.#d.ca;
    const window = certificateWindow(this.#now(), certificateDurationMs(view.expirationSeconds, this.#d.signingDurationMs), ca.notAfter);
    if ('error' in window) return this.#fail(obj, 'SigningFailed', window.error);
    const pem = issueCertificate({
      subject: { commonName: parsed.commonName },
      subjectName: parsed.subject,
      publicKey: parsed.publicKey,
      issuer: { subject: { commonName: '' }, privateKey: ca.privateKey, publicKey: ca.publicKey },
      issuerName: ca.subjectName,
      notBefore: window.notBefore,
      notAfter: window.notAfter,
      isCA: false,
      usages,
      // The request's names, as upstream's signer copies them (none in a node client request).
      hosts: [...parsed.dnsNames, ...parsed.ipAddresses],
    });
    const status = isRec(obj.status) ? obj.status : {};
    await this.#d.store.update('', name, { ...obj, status: { ...status, certificate: Buffer.from(pem).toString('base64') } }, { subresource: 'status' });
    const what = view.signerName === AGENT_SERVING_SIGNER ? 'an agent serving certificate' : 'a node client certificate';
    this.#d.log.info(`Signed ${what}`, { csr: name, subject: parsed.commonName, notAfter: window.notAfter.toISOString() });
  }

  async #fail(obj: ApiObject, reason: string, message: string): Promise<void> {
    const status = isRec(obj.status) ? obj.status : {};
    const conditions = Array.isArray(status.conditions) ? status.conditions : [];
    const body: ApiObject = { ...obj, status: { ...status, conditions: [...conditions, condition('Failed', reason, message, new Date(this.#now()))] } };
    try {
      await this.#d.store.update('', obj.metadata.name ?? '', body, { subresource: 'status' });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    this.#d.log.warn('Cannot sign a certificate request', { csr: obj.metadata.name, reason, message });
  }
}
