// The pure part of create and update (upstream's rest.BeforeCreate and
// rest.BeforeUpdate): the namespace of the path against the body's, system
// fields set or carried over, the status/spec split of the status
// subresource, the strategy's hooks, and every validation error at once.
// No I/O; the store decides what to write.
import { randomUUID } from 'node:crypto';
import { apiErrors, type FieldError } from '../../api/errors.js';
import { nameValidator, validateObjectMeta, validateObjectMetaUpdate } from '../validation/object-meta.js';
import { apiVersionOf, clone, generateName, timestamp } from './object.js';
import type { ApiObject, Strategy } from './types.js';

/** upstream's EnsureObjectNamespaceMatchesRequestNamespace: fills an empty namespace, clears it for cluster scope, 400 on a mismatch. */
export function reconcileNamespace(obj: ApiObject, requestNamespace: string, namespaced: boolean): void {
  const want = namespaced ? requestNamespace : '';
  const have = obj.metadata.namespace ?? '';
  if (have === want) return;
  if (have === '' || want === '') {
    if (want === '') delete obj.metadata.namespace;
    else obj.metadata.namespace = want;
    return;
  }
  throw apiErrors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
}

/** A body as the store works on it: a copy with a metadata object, typed as the resource. */
export function normalize(body: ApiObject, strategy: Strategy): ApiObject {
  const obj = clone(body);
  if (obj.metadata === null || typeof obj.metadata !== 'object' || Array.isArray(obj.metadata)) obj.metadata = {};
  obj.apiVersion = apiVersionOf(strategy.info);
  obj.kind = strategy.info.kind;
  return obj;
}

export interface Prepared {
  obj: ApiObject;
  errors: FieldError[];
}

/** The object a create would store (name generated, uid, creationTimestamp) and its validation errors. */
export function prepareCreate(strategy: Strategy, body: ApiObject, namespace: string, now: number): Prepared {
  const obj = normalize(body, strategy);
  reconcileNamespace(obj, namespace, strategy.info.namespaced);
  const meta = obj.metadata;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.resourceVersion;
  strategy.prepareForCreate?.(obj);
  if ((meta.name ?? '') === '' && (meta.generateName ?? '') !== '') meta.name = generateName(meta.generateName ?? '');
  meta.uid = randomUUID();
  meta.creationTimestamp = timestamp(now);
  delete meta.generation;
  strategy.defaults?.(obj);
  const errors = [...validateObjectMeta(meta, strategy.info.namespaced, nameValidator(strategy.nameRule)), ...strategy.validate(obj)];
  return { obj, errors };
}

const METADATA_AND_STATUS = new Set(['apiVersion', 'kind', 'metadata', 'status']);

/** A status write keeps everything but the status (and labels/annotations, which upstream lets through) from `old`. */
function statusOnly(obj: ApiObject, old: ApiObject): ApiObject {
  const out: ApiObject = { ...clone(old), metadata: { ...obj.metadata, ownerReferences: clone(old.metadata.ownerReferences) } };
  if (old.metadata.ownerReferences === undefined) delete out.metadata.ownerReferences;
  for (const k of Object.keys(out)) if (!METADATA_AND_STATUS.has(k)) out[k] = clone(old[k]);
  if ('status' in obj) out.status = obj.status;
  else delete out.status;
  return out;
}

const hasStatus = (strategy: Strategy): boolean => (strategy.info.subresources ?? []).some((s) => s.name === 'status');

/** Whether `PUT <object>/<subresource>` is an update this strategy serves ('' is the object itself). */
export function servesUpdate(strategy: Strategy, subresource: string): boolean {
  if (subresource === '') return true;
  if (subresource === 'status') return hasStatus(strategy);
  return strategy.updateSubresources?.[subresource] !== undefined && (strategy.info.subresources ?? []).some((s) => s.name === subresource);
}

/**
 * The object an update would store, from the client's `body` and the stored
 * `old` (with its resourceVersion), and its validation errors. The caller has
 * checked the resourceVersion precondition.
 */
export function prepareUpdate(strategy: Strategy, body: ApiObject, old: ApiObject, subresource: string): Prepared {
  let obj = normalize(body, strategy);
  reconcileNamespace(obj, old.metadata.namespace ?? '', strategy.info.namespaced);
  const custom = subresource === '' ? undefined : strategy.updateSubresources?.[subresource];
  if (custom !== undefined) obj = normalize(custom.merge(obj, old), strategy);
  else if (subresource === 'status') obj = statusOnly(obj, old);
  else if (hasStatus(strategy)) {
    if (old.status === undefined) delete obj.status;
    else obj.status = clone(old.status);
  }
  const meta = obj.metadata;
  const was = old.metadata;
  if (was.generation === undefined) delete meta.generation;
  else meta.generation = was.generation;
  if ((meta.uid ?? '') === '') meta.uid = was.uid;
  if (was.creationTimestamp !== undefined) meta.creationTimestamp = was.creationTimestamp;
  if (was.deletionTimestamp !== undefined) meta.deletionTimestamp = was.deletionTimestamp;
  if (was.deletionGracePeriodSeconds !== undefined && meta.deletionGracePeriodSeconds === undefined) meta.deletionGracePeriodSeconds = was.deletionGracePeriodSeconds;
  meta.resourceVersion = was.resourceVersion;
  if (subresource === '') strategy.prepareForUpdate?.(obj, old);
  strategy.defaults?.(obj);
  const errors = validateObjectMetaUpdate(meta, was, strategy.info.namespaced, nameValidator(strategy.nameRule));
  if (custom !== undefined) errors.push(...custom.validate(obj, old));
  else if (subresource === 'status') errors.push(...(strategy.validateStatusUpdate ?? strategy.validate)(obj, old));
  else errors.push(...strategy.validate(obj), ...(strategy.validateUpdate?.(obj, old) ?? []));
  return { obj, errors };
}

/** upstream's shouldDeleteDuringUpdate: the last finalizer of an object whose deletion is due went away. */
export function deleteOnUpdate(obj: ApiObject, old: ApiObject): boolean {
  if ((obj.metadata.finalizers ?? []).length > 0) return false;
  if ((old.metadata.finalizers ?? []).length === 0) return false;
  return old.metadata.deletionTimestamp !== undefined && old.metadata.deletionGracePeriodSeconds === 0;
}
