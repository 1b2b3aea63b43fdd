// Secrets (core/v1): base64 data under config keys, a type (default Opaque,
// immutable) whose required keys are checked as upstream's, frozen once
// `immutable` is set. Values never appear in error messages.
import type { FieldError } from '../../../api/errors.js';
import { isRecord } from '../object.js';
import type { ApiObject, Strategy } from '../types.js';
import { OBJECT_VERBS, checkImmutableData, checkOptionalType, checkStringMap, immutable, str } from './common.js';
import { MAX_DATA_BYTES, checkBase64Map, checkDataKeys } from './configmaps.js';

export const SERVICE_ACCOUNT_NAME_ANNOTATION = 'platform.io/service-account.name';

/** Keys a secret of each type must carry (upstream's ValidateSecret). */
const REQUIRED_KEYS: Readonly<Record<string, readonly string[]>> = {
  'platform.io/dockercfg': ['.dockercfg'],
  'platform.io/dockerconfigjson': ['.dockerconfigjson'],
  'platform.io/ssh-auth': ['ssh-privatekey'],
  'platform.io/tls': ['tls.crt', 'tls.key'],
};

function validateSecret(obj: ApiObject): FieldError[] {
  const errs: FieldError[] = [...checkBase64Map(obj.data, 'data'), ...checkStringMap(obj.stringData, 'stringData'), ...checkOptionalType(obj.immutable, 'boolean', 'immutable'), ...checkOptionalType(obj.type, 'string', 'type')];
  errs.push(...checkDataKeys(obj.data, 'data'));
  const data = isRecord(obj.data) ? obj.data : {};
  const type = str(obj, 'type');
  for (const key of REQUIRED_KEYS[type] ?? []) if (!(key in data)) errs.push({ type: 'FieldValueRequired', field: `data[${key}]` });
  if (type === 'platform.io/service-account-token' && (obj.metadata.annotations?.[SERVICE_ACCOUNT_NAME_ANNOTATION] ?? '') === '') {
    errs.push({ type: 'FieldValueRequired', field: `metadata.annotations[${SERVICE_ACCOUNT_NAME_ANNOTATION}]` });
  }
  if (type === 'platform.io/basic-auth' && !('username' in data) && !('password' in data)) errs.push({ type: 'FieldValueRequired', field: 'data[username]', detail: 'either username or password is required' });
  let size = 0;
  for (const v of Object.values(data)) size += typeof v === 'string' ? Math.floor((v.length * 3) / 4) : 0;
  if (size > MAX_DATA_BYTES) errs.push({ type: 'FieldValueTooLong', field: 'data', value: '', detail: `must have at most ${MAX_DATA_BYTES} bytes` });
  return errs;
}

/** stringData is write-only: merged into data (base64) and dropped, as upstream's conversion does. */
function mergeStringData(obj: ApiObject): void {
  if (!isRecord(obj.stringData)) return;
  const data: Record<string, unknown> = isRecord(obj.data) ? obj.data : {};
  for (const [k, v] of Object.entries(obj.stringData)) if (typeof v === 'string') data[k] = Buffer.from(v).toString('base64');
  obj.data = data;
  delete obj.stringData;
}

export const secrets: Strategy = {
  info: { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', singular: 'secret', namespaced: true, verbs: OBJECT_VERBS },
  nameRule: 'subdomain',
  allowCreateOnUpdate: false,
  omitValuesInErrors: true,
  selectableFields: ['type'],
  defaults(obj) {
    if (str(obj, 'type') === '') obj.type = 'Opaque';
    mergeStringData(obj);
  },
  validate: validateSecret,
  validateUpdate: (obj, old) => [...immutable(obj.type, old.type, 'type'), ...checkImmutableData(obj, old, ['data'])],
  fields: (obj) => ({ type: str(obj, 'type') }),
};
