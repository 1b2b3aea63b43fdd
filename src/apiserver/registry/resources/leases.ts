// Leases (coordination.platform.io/v1): the agent's node heartbeat in
// `platform-node-lease`, renewed by PUT with the last resourceVersion.
import type { FieldError } from '../../../api/errors.js';
import type { ApiObject, Strategy } from '../types.js';
import { OBJECT_VERBS, checkOptionalType, rec } from './common.js';

function validateLease(obj: ApiObject): FieldError[] {
  const spec = rec(obj, 'spec') ?? {};
  const errs: FieldError[] = [
    ...checkOptionalType(spec.holderIdentity, 'string', 'spec.holderIdentity'),
    ...checkOptionalType(spec.leaseDurationSeconds, 'number', 'spec.leaseDurationSeconds'),
    ...checkOptionalType(spec.leaseTransitions, 'number', 'spec.leaseTransitions'),
  ];
  if (typeof spec.leaseDurationSeconds === 'number' && spec.leaseDurationSeconds <= 0) {
    errs.push({ type: 'FieldValueInvalid', field: 'spec.leaseDurationSeconds', value: spec.leaseDurationSeconds, detail: 'must be greater than 0' });
  }
  if (typeof spec.leaseTransitions === 'number' && spec.leaseTransitions < 0) {
    errs.push({ type: 'FieldValueInvalid', field: 'spec.leaseTransitions', value: spec.leaseTransitions, detail: 'must be greater than or equal to 0' });
  }
  return errs;
}

export const leases: Strategy = {
  info: { group: 'coordination.platform.io', version: 'v1', resource: 'leases', kind: 'Lease', singular: 'lease', namespaced: true, verbs: OBJECT_VERBS },
  nameRule: 'subdomain',
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: false,
  validate: validateLease,
};
