// ConfigMaps (core/v1): string data and base64 binaryData under keys of
// `[-._a-zA-Z0-9]`, no key in both, at most 1 MiB together, frozen once
// `immutable` is set.
import type { FieldError } from '../../../api/errors.js';
import { isConfigMapKey } from '../../../pod-model/pod-validate-util.js';
import { regexError } from '../../validation/names.js';
import { isRecord } from '../object.js';
import type { ApiObject, Strategy } from '../types.js';
import { OBJECT_VERBS, checkImmutableData, checkOptionalType, checkStringMap } from './common.js';

export const MAX_DATA_BYTES = 1024 * 1024;
const KEY_MESSAGE = regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", '[-._a-zA-Z0-9]+', 'key.name', 'KEY_NAME', 'key-name');

/** Keys of a data map, as ConfigMaps and Secrets name them. */
export function checkDataKeys(map: unknown, field: string): FieldError[] {
  if (!isRecord(map)) return [];
  return Object.keys(map)
    .filter((k) => !isConfigMapKey(k))
    .map((k) => ({ type: 'FieldValueInvalid', field, value: k, detail: KEY_MESSAGE }));
}

export const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A map of base64 strings (binaryData, Secret data): type errors per key. */
export function checkBase64Map(map: unknown, field: string): FieldError[] {
  if (!isRecord(map)) return checkStringMap(map, field);
  return Object.entries(map)
    .filter(([, v]) => typeof v !== 'string' || !BASE64.test(v))
    .map(([k, v]) => ({ type: 'FieldValueTypeInvalid', field: `${field}[${k}]`, value: v, detail: 'must be a base64-encoded string' }));
}

function validateConfigMap(obj: ApiObject): FieldError[] {
  const errs: FieldError[] = [...checkStringMap(obj.data, 'data'), ...checkBase64Map(obj.binaryData, 'binaryData'), ...checkOptionalType(obj.immutable, 'boolean', 'immutable')];
  errs.push(...checkDataKeys(obj.data, 'data'), ...checkDataKeys(obj.binaryData, 'binaryData'));
  const data = isRecord(obj.data) ? obj.data : {};
  const binary = isRecord(obj.binaryData) ? obj.binaryData : {};
  for (const k of Object.keys(binary)) if (k in data) errs.push({ type: 'FieldValueInvalid', field: 'data', value: k, detail: 'duplicate of key present in binaryData' });
  let size = 0;
  for (const v of Object.values(data)) size += typeof v === 'string' ? Buffer.byteLength(v) : 0;
  for (const v of Object.values(binary)) size += typeof v === 'string' ? Math.floor((v.length * 3) / 4) : 0;
  if (size > MAX_DATA_BYTES) errs.push({ type: 'FieldValueTooLong', field: '', value: '', detail: `must have at most ${MAX_DATA_BYTES} bytes` });
  return errs;
}

export const configmaps: Strategy = {
  info: { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', singular: 'configmap', namespaced: true, verbs: OBJECT_VERBS, shortNames: ['cm'] },
  nameRule: 'subdomain',
  allowCreateOnUpdate: false,
  validate: validateConfigMap,
  validateUpdate: (obj, old) => checkImmutableData(obj, old, ['data', 'binaryData']),
};
