// CertificateSigningRequest rules (certificates.platform.io/v1; upstream's
// pkg/apis/certificates/validation): the request is a PEM CERTIFICATE REQUEST,
// the signer name has the domain/path form, usages are known and unique,
// expirationSeconds ≥ 600, Approved and Denied are mutually exclusive and,
// once added, never removed or flipped, and status.certificate holds
// CERTIFICATE blocks only, without headers, set once. Pure.
import type { FieldError } from '../../../api/errors.js';
import type { ApiObject } from '../types.js';
import { validateSignerName } from './clustertrustbundle-rules.js';
import { decodePem, parseCertificate } from './pem-rules.js';

export const KNOWN_USAGES: readonly string[] = [
  'any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment', 'decipher only', 'digital signature', 'email protection', 'encipher only',
  'ipsec end system', 'ipsec tunnel', 'ipsec user', 'key agreement', 'key encipherment', 'microsoft sgc', 'netscape sgc', 'ocsp signing', 's/mime', 'server auth', 'signing', 'timestamping',
];
const ONCE_TYPES = ['Approved', 'Denied', 'Failed'];

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const recs = (v: unknown): Rec[] => (Array.isArray(v) ? v.map((x) => (isRec(x) ? x : {})) : []);
const b64 = (v: unknown): string => (typeof v === 'string' ? Buffer.from(v, 'base64').toString('latin1') : '');

/** The request PEM's problem, or undefined. node:crypto cannot parse PKCS#10, so the DER is only checked to be a SEQUENCE. */
function requestProblem(request: unknown): string | undefined {
  const blocks = decodePem(b64(request));
  const b = blocks[0];
  if (b === undefined || b.type !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  if (b.bytes[0] !== 0x30) return 'asn1: structure error: tags don\'t match';
  return undefined;
}

/** upstream's validateCertificate for status.certificate. */
export function certificateProblem(pem: string): string | undefined {
  const blocks = decodePem(pem);
  for (const b of blocks) {
    if (b.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(b.type)}`;
    if (Object.keys(b.headers).length > 0) return 'no PEM block headers are permitted';
    if (parseCertificate(b.bytes) === undefined) return 'x509: malformed certificate';
  }
  return blocks.length === 0 ? 'must contain at least one CERTIFICATE PEM block' : undefined;
}

function validateSpec(spec: Rec): FieldError[] {
  const errs: FieldError[] = [];
  const bad = requestProblem(spec.request);
  if (bad !== undefined) errs.push({ type: 'FieldValueInvalid', field: 'spec.request', detail: bad });
  errs.push(...validateSignerName(typeof spec.signerName === 'string' ? spec.signerName : ''));
  const exp = spec.expirationSeconds;
  if (exp !== undefined && exp !== null && (typeof exp !== 'number' || exp < 600)) errs.push({ type: 'FieldValueInvalid', field: 'spec.expirationSeconds', value: exp, detail: 'may not specify a duration less than 600 seconds (10 minutes)' });
  const usages = Array.isArray(spec.usages) ? spec.usages : [];
  if (usages.length === 0) errs.push({ type: 'FieldValueRequired', field: 'spec.usages', detail: 'usages must be provided' });
  const seen = new Set<unknown>();
  usages.forEach((u, i) => {
    if (typeof u !== 'string' || !KNOWN_USAGES.includes(u)) errs.push({ type: 'FieldValueNotSupported', field: `spec.usages[${i}]`, value: u, supported: KNOWN_USAGES });
    else if (seen.has(u)) errs.push({ type: 'FieldValueDuplicate', field: `spec.usages[${i}]`, value: u });
    seen.add(u);
  });
  return errs;
}

function validateStatus(status: Rec): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  recs(status.conditions).forEach((c, i) => {
    const field = `status.conditions[${i}]`;
    const type = typeof c.type === 'string' ? c.type : '';
    if (type === '') errs.push({ type: 'FieldValueRequired', field: `${field}.type` });
    if (ONCE_TYPES.includes(type)) {
      if (seen.has(type)) errs.push({ type: 'FieldValueDuplicate', field: `${field}.type`, value: type });
      seen.add(type);
      if (c.status !== 'True') errs.push({ type: 'FieldValueNotSupported', field: `${field}.status`, value: c.status, supported: ['True'] });
    } else if (!['True', 'False', 'Unknown'].includes(String(c.status))) errs.push({ type: 'FieldValueNotSupported', field: `${field}.status`, value: c.status, supported: ['False', 'True', 'Unknown'] });
  });
  if (seen.has('Approved') && seen.has('Denied')) errs.push({ type: 'FieldValueInvalid', field: 'status.conditions', detail: 'Approved and Denied conditions are mutually exclusive' });
  const cert = b64(status.certificate);
  if (cert !== '') {
    const bad = certificateProblem(cert);
    if (bad !== undefined) errs.push({ type: 'FieldValueInvalid', field: 'status.certificate', value: '<certificate data>', detail: bad });
  }
  return errs;
}

export function validateCsr(obj: ApiObject): FieldError[] {
  return [...validateSpec(isRec(obj.spec) ? obj.spec : {}), ...(isRec(obj.status) ? validateStatus(obj.status) : [])];
}

const conditionsOf = (obj: ApiObject): Rec[] => recs(isRec(obj.status) ? obj.status.conditions : undefined);

/** Approved/Denied/Failed are append-only; the certificate, once issued, is fixed and needs an approval. */
export function validateCsrStatusChange(obj: ApiObject, old: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const now = conditionsOf(obj);
  for (const c of conditionsOf(old)) {
    const type = typeof c.type === 'string' ? c.type : '';
    if (!ONCE_TYPES.includes(type)) continue;
    const still = now.find((n) => n.type === type);
    if (still === undefined) errs.push({ type: 'FieldValueForbidden', field: 'status.conditions', detail: `updates may not remove a condition of type ${JSON.stringify(type)}` });
    else if (still.status !== c.status) errs.push({ type: 'FieldValueForbidden', field: 'status.conditions', detail: `updates may not change the status of a condition of type ${JSON.stringify(type)}` });
  }
  const oldCert = isRec(old.status) ? old.status.certificate : undefined;
  const newCert = isRec(obj.status) ? obj.status.certificate : undefined;
  if (typeof oldCert === 'string' && oldCert !== '' && newCert !== oldCert) errs.push({ type: 'FieldValueForbidden', field: 'status.certificate', detail: 'updates may not modify existing certificate content' });
  if (typeof newCert === 'string' && newCert !== '' && newCert !== oldCert && !now.some((c) => c.type === 'Approved' && c.status === 'True')) {
    errs.push({ type: 'FieldValueForbidden', field: 'status.certificate', detail: 'certificate issuance requires an Approved condition' });
  }
  return errs;
}

/** Only the approval subresource adds or changes Approved and Denied. */
export function approvalUnchanged(obj: ApiObject, old: ApiObject): FieldError[] {
  const pick = (o: ApiObject): string => JSON.stringify(conditionsOf(o).filter((c) => c.type === 'Approved' || c.type === 'Denied').map((c) => [c.type, c.status]));
  return pick(obj) === pick(old) ? [] : [{ type: 'FieldValueForbidden', field: 'status.conditions', detail: 'the Approved and Denied conditions can only be changed through the approval subresource' }];
}
