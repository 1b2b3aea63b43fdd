// ClusterTrustBundles (certificates.platform.io/v1alpha1, cluster-scoped,
// served only with the ClusterTrustBundle gate; §2.3). The name is checked
// here rather than by the store's name rule because it may carry the signer
// prefix with colons (nameRule path-segment only keeps the path safe). The
// `attest` permission is admission's (admission/ctb-attest.ts), not this file's.
import type { FieldError } from '../../../api/errors.js';
import type { ApiObject, Strategy } from '../types.js';
import { clusterTrustBundleNameErrors, validateSignerName, validateTrustBundle } from './clustertrustbundle-rules.js';
import { OBJECT_VERBS, immutable, rec, str } from './common.js';

function validateBundle(obj: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = rec(obj, 'spec');
  if (spec === undefined) return [{ type: 'FieldValueRequired', field: 'spec' }];
  const signer = spec.signerName;
  if (signer !== undefined && signer !== null && typeof signer !== 'string') errs.push({ type: 'FieldValueTypeInvalid', field: 'spec.signerName', value: signer, detail: 'must be a string' });
  const signerName = str(spec, 'signerName');
  const name = obj.metadata.name ?? '';
  const generate = obj.metadata.generateName ?? '';
  if (name !== '') for (const m of clusterTrustBundleNameErrors(name, signerName)) errs.push({ type: 'FieldValueInvalid', field: 'metadata.name', value: name, detail: m });
  else if (generate !== '') for (const m of clusterTrustBundleNameErrors(generate, signerName, true)) errs.push({ type: 'FieldValueInvalid', field: 'metadata.generateName', value: generate, detail: m });
  if (signerName !== '') errs.push(...validateSignerName(signerName));
  const bundle = spec.trustBundle;
  if (bundle !== undefined && bundle !== null && typeof bundle !== 'string') errs.push({ type: 'FieldValueTypeInvalid', field: 'spec.trustBundle', value: '<value omitted>', detail: 'must be a string' });
  else errs.push(...validateTrustBundle(typeof bundle === 'string' ? bundle : ''));
  return errs;
}

export const clustertrustbundles: Strategy = {
  info: {
    group: 'certificates.platform.io',
    version: 'v1alpha1',
    resource: 'clustertrustbundles',
    kind: 'ClusterTrustBundle',
    singular: 'clustertrustbundle',
    namespaced: false,
    verbs: OBJECT_VERBS,
    featureGate: 'ClusterTrustBundle',
  },
  nameRule: 'path-segment',
  allowCreateOnUpdate: false,
  selectableFields: ['spec.signerName'],
  validate: validateBundle,
  validateUpdate: (obj, old) => immutable(str(obj, 'spec', 'signerName'), str(old, 'spec', 'signerName'), 'spec.signerName'),
  fields: (obj) => ({ 'spec.signerName': str(obj, 'spec', 'signerName') }),
};
