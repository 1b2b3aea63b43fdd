// CertificateSigningRequests (certificates.platform.io/v1, cluster-scoped,
// + status, + approval). The spec is fixed at create (updates keep the stored
// one, as upstream's PrepareForUpdate), the requester's identity is stamped
// from the authenticated user (setRequester, called by the create handler:
// the Strategy hooks do not see the user), status writes may not approve,
// and the approval subresource (the store's updateSubresources hook:
// prepareApproval + validateApproval) changes only the Approved/Denied
// conditions.
import type { FieldError } from '../../../api/errors.js';
import type { UserInfo } from '../../types.js';
import type { ApiObject, Strategy } from '../types.js';
import { OBJECT_VERBS, STATUS_VERBS, rec } from './common.js';
import { approvalUnchanged, validateCsr, validateCsrStatusChange } from './csr-rules.js';

const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

export const certificatesigningrequests: Strategy = {
  info: {
    group: 'certificates.platform.io',
    version: 'v1',
    resource: 'certificatesigningrequests',
    kind: 'CertificateSigningRequest',
    singular: 'certificatesigningrequest',
    namespaced: false,
    verbs: OBJECT_VERBS,
    shortNames: ['csr'],
    subresources: [
      { name: 'status', kind: 'CertificateSigningRequest', verbs: STATUS_VERBS },
      { name: 'approval', kind: 'CertificateSigningRequest', verbs: STATUS_VERBS },
    ],
  },
  // Upstream's ValidateCertificateRequestName accepts any name: a node names its
  // request node-csr-<base64url digest>, with capitals and underscores.
  nameRule: 'path-segment',
  allowCreateOnUpdate: false,
  selectableFields: ['spec.signerName'],
  prepareForCreate(obj) {
    delete obj.status;
  },
  prepareForUpdate(obj, old) {
    obj.spec = clone(old.spec);
  },
  validate: validateCsr,
  validateStatusUpdate: (obj, old) => [...validateCsr(obj), ...validateCsrStatusChange(obj, old), ...approvalUnchanged(obj, old)],
  updateSubresources: { approval: { merge: (body, old) => prepareApproval(body, old), validate: (obj, old) => validateApproval(obj, old) } },
  fields: (obj) => ({ 'spec.signerName': typeof rec(obj, 'spec')?.signerName === 'string' ? String(rec(obj, 'spec')?.signerName) : '' }),
};

/** upstream's PrepareForCreate user stamping: spec.username/uid/groups/extra are the requester's, whatever the body said. */
export function setRequester(obj: ApiObject, user: UserInfo): void {
  const spec = rec(obj, 'spec') ?? {};
  spec.username = user.name;
  spec.uid = user.uid;
  spec.groups = [...user.groups];
  spec.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  if (user.uid === '') delete spec.uid;
  if (Object.keys(user.extra).length === 0) delete spec.extra;
  obj.spec = spec;
}

/** The object an approval update stores: the stored one with the body's Approved/Denied conditions (others and the certificate kept). */
export function prepareApproval(body: ApiObject, old: ApiObject): ApiObject {
  const out = clone(old);
  out.metadata = { ...old.metadata, ...body.metadata, resourceVersion: old.metadata.resourceVersion, uid: old.metadata.uid, creationTimestamp: old.metadata.creationTimestamp };
  const conds = (o: ApiObject): Record<string, unknown>[] => (Array.isArray(rec(o, 'status')?.conditions) ? (rec(o, 'status')?.conditions as Record<string, unknown>[]) : []);
  const keep = conds(old).filter((c) => c.type !== 'Approved' && c.type !== 'Denied');
  const approval = conds(body).filter((c) => c.type === 'Approved' || c.type === 'Denied');
  out.status = { ...(rec(old, 'status') ?? {}), conditions: [...approval, ...keep] };
  return out;
}

export function validateApproval(obj: ApiObject, old: ApiObject): FieldError[] {
  return [...validateCsr(obj), ...validateCsrStatusChange(obj, old)];
}
