// ServiceAccounts (core/v1, §2.2): names of secrets and image-pull secrets
// in the same namespace; the token subresource comes with token issuing.
import type { FieldError } from '../../../api/errors.js';
import { isRecord } from '../object.js';
import type { ApiObject, Strategy } from '../types.js';
import { OBJECT_VERBS, checkOptionalType } from './common.js';

function checkRefs(list: unknown, field: string): FieldError[] {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) return [{ type: 'FieldValueTypeInvalid', field, value: list, detail: 'must be an array' }];
  const errs: FieldError[] = [];
  list.forEach((ref, i) => {
    if (!isRecord(ref)) errs.push({ type: 'FieldValueTypeInvalid', field: `${field}[${i}]`, value: ref, detail: 'must be an object' });
    else errs.push(...checkOptionalType(ref.name, 'string', `${field}[${i}].name`));
  });
  return errs;
}

function validateServiceAccount(obj: ApiObject): FieldError[] {
  return [...checkOptionalType(obj.automountServiceAccountToken, 'boolean', 'automountServiceAccountToken'), ...checkRefs(obj.secrets, 'secrets'), ...checkRefs(obj.imagePullSecrets, 'imagePullSecrets')];
}

export const serviceaccounts: Strategy = {
  info: {
    group: '',
    version: 'v1',
    resource: 'serviceaccounts',
    kind: 'ServiceAccount',
    singular: 'serviceaccount',
    namespaced: true,
    verbs: OBJECT_VERBS,
    shortNames: ['sa'],
    subresources: [{ name: 'token', kind: 'TokenRequest', group: 'authentication.platform.io', version: 'v1', verbs: ['create'] }],
  },
  nameRule: 'subdomain',
  allowCreateOnUpdate: false,
  returnDeletedObject: true,
  validate: validateServiceAccount,
};
