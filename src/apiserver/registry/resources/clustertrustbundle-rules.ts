// ClusterTrustBundle validation (§2.3 rules 1-6; upstream's
// ValidateClusterTrustBundle in pkg/apis/certificates/validation): PEM
// CERTIFICATE blocks only, no headers, X.509, CA bit, no duplicates, at least
// one, 1 MiB at most; the signer name's `domain/path` form; the name prefix
// rule both ways. Bundle values are never echoed. Pure.
import type { FieldError } from '../../../api/errors.js';
import { DNS1123_SUBDOMAIN_MAX, isDns1123Label, isValidPathSegmentName, maxLenError, nameIsDnsSubdomain } from '../../validation/names.js';
import { decodePem, parseCertificate } from './pem-rules.js';

export const MAX_TRUST_BUNDLE_SIZE = 1024 * 1024;
const OMITTED = '<value omitted>';

/** upstream's validateTrustBundle: one error per bad entry, 0-based indices. */
export function validateTrustBundle(bundle: string, field = 'spec.trustBundle'): FieldError[] {
  if (Buffer.byteLength(bundle) > MAX_TRUST_BUNDLE_SIZE) return [{ type: 'FieldValueTooLong', field, value: `<value omitted, len ${Buffer.byteLength(bundle)}>`, detail: `may not be longer than ${MAX_TRUST_BUNDLE_SIZE}` }];
  const errs: FieldError[] = [];
  const invalid = (detail: string): void => void errs.push({ type: 'FieldValueInvalid', field, value: OMITTED, detail });
  const seen = new Map<string, number[]>();
  const blocks = decodePem(bundle);
  blocks.forEach((b, i) => {
    if (b.type !== 'CERTIFICATE') return invalid(`entry ${i} has bad block type: ${b.type}`);
    if (Object.keys(b.headers).length > 0) return invalid(`entry ${i} has PEM block headers`);
    const cert = parseCertificate(b.bytes);
    if (cert === undefined) return invalid(`entry ${i} does not parse as X.509`);
    // node:crypto reports the CA flag of the basic-constraints extension; a certificate without the extension is not a CA.
    if (!cert.ca) return invalid(`entry ${i} does not have the CA bit set`);
    const key = b.bytes.toString('base64');
    seen.set(key, [...(seen.get(key) ?? []), i]);
  });
  if (blocks.length === 0) invalid('at least one trust anchor must be provided');
  for (const indices of seen.values()) if (indices.length > 1) invalid(`duplicate trust anchor (indices [${indices.join(' ')}])`);
  return errs;
}

/** upstream's ValidateSignerName: `example.com/signer-name`. */
export function validateSignerName(signerName: string, field = 'spec.signerName'): FieldError[] {
  if (signerName === '') return [{ type: 'FieldValueRequired', field }];
  const segments = signerName.split('/');
  if (segments.length !== 2) return [{ type: 'FieldValueInvalid', field, value: signerName, detail: "must be a fully qualified domain and path of the form 'example.com/signer-name'" }];
  const [domain = '', path = ''] = segments;
  const errs: FieldError[] = [];
  if (domain.length > DNS1123_SUBDOMAIN_MAX) errs.push({ type: 'FieldValueTooLong', field, value: domain, detail: `may not be longer than ${DNS1123_SUBDOMAIN_MAX}` });
  const labels = domain.split('.');
  for (const label of labels) {
    const bad = isDns1123Label(label);
    if (bad.length > 0) {
      for (const m of bad) errs.push({ type: 'FieldValueInvalid', field, value: domain, detail: `validating label ${JSON.stringify(label)}: ${m}` });
      break;
    }
  }
  if (labels.length < 2) errs.push({ type: 'FieldValueInvalid', field, value: domain, detail: 'should be a domain with at least two segments separated by dots' });
  if (path === '') errs.push({ type: 'FieldValueInvalid', field, value: path, detail: 'path segment must be non-empty' });
  else if (path.length > DNS1123_SUBDOMAIN_MAX) errs.push({ type: 'FieldValueTooLong', field, value: path, detail: maxLenError(DNS1123_SUBDOMAIN_MAX) });
  else for (const m of isValidPathSegmentName(path, false)) errs.push({ type: 'FieldValueInvalid', field, value: path, detail: `validating path ${JSON.stringify(path)}: ${m}` });
  return errs;
}

/** The name messages for a bundle name (§2.3 rules 5 and 6; upstream's ValidateClusterTrustBundleName). */
export function clusterTrustBundleNameErrors(name: string, signerName: string, prefix = false): string[] {
  if (signerName === '') {
    if (name.includes(':')) return ['ClusterTrustBundle without signer name must not have ":" in its name'];
    return nameIsDnsSubdomain(name, prefix);
  }
  const required = `${signerName.replaceAll('/', ':')}:`;
  if (!name.startsWith(required)) return [`ClusterTrustBundle for signerName ${signerName} must be named with prefix ${required}`];
  return nameIsDnsSubdomain(name.slice(required.length), prefix);
}
