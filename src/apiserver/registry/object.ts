// Small pure helpers over JSON-form objects: copying, the storage key of an
// object, timestamps in the API's second-precision RFC 3339 form, names from
// generateName as upstream's SimpleNameGenerator makes them.
import { randomInt } from 'node:crypto';
import type { ApiObject, ResourceInfo } from './types.js';

/**
 * A deep copy of a JSON-form value (plain objects, arrays, primitives; an
 * `undefined` member is kept, as structuredClone keeps it). Anything else
 * (bytes, dates) is copied by structuredClone. Hand-written because every
 * write copies its body: structuredClone serialises through V8's value
 * serializer and costs several times more on these small trees.
 */
export function clone<T>(v: T): T {
  return cloneValue(v) as T;
}

function cloneValue(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = cloneValue(v[i]);
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return structuredClone(v);
  const out: Record<string, unknown> = {};
  for (const k in v) {
    const member = cloneValue((v as Record<string, unknown>)[k]);
    // A parsed body may carry an own "__proto__" member: keep it data, as structuredClone does.
    if (k === '__proto__') Object.defineProperty(out, k, { value: member, enumerable: true, writable: true, configurable: true });
    else out[k] = member;
  }
  return out;
}

/** `2026-11-24T07:00:00Z`: metav1.Time has second precision on the wire. */
export function timestamp(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';
const RANDOM_LENGTH = 5;
const MAX_GENERATED_BASE = 63 - RANDOM_LENGTH;

/** `base` cut to 58 characters plus five random characters from upstream's alphabet (no vowels, no look-alikes). */
export function generateName(base: string, random: (n: number) => number = randomInt): string {
  let suffix = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) suffix += ALPHANUMS[random(ALPHANUMS.length)];
  return `${base.length > MAX_GENERATED_BASE ? base.slice(0, MAX_GENERATED_BASE) : base}${suffix}`;
}

/** The storage prefix of a resource: `/registry/<group or core>/<resource>/`. */
export function resourcePrefix(info: Pick<ResourceInfo, 'group' | 'resource'>): string {
  return `/registry/${info.group === '' ? 'core' : info.group}/${info.resource}/`;
}

/** The prefix a list or watch reads: the resource's, narrowed to a namespace when one is given. */
export function listPrefix(info: Pick<ResourceInfo, 'group' | 'resource' | 'namespaced'>, namespace: string): string {
  return info.namespaced && namespace !== '' ? `${resourcePrefix(info)}${namespace}/` : resourcePrefix(info);
}

export function objectKey(info: Pick<ResourceInfo, 'group' | 'resource' | 'namespaced'>, namespace: string, name: string): string {
  return info.namespaced ? `${resourcePrefix(info)}${namespace}/${name}` : `${resourcePrefix(info)}${name}`;
}

export const apiVersionOf = (info: Pick<ResourceInfo, 'group' | 'version'>): string => (info.group === '' ? info.version : `${info.group}/${info.version}`);

/** The object as a client reads it: apiVersion and kind set, resourceVersion from the store's revision. */
export function withVersion(obj: ApiObject, info: ResourceInfo, revision: number): ApiObject {
  return { ...obj, apiVersion: apiVersionOf(info), kind: info.kind, metadata: { ...obj.metadata, resourceVersion: String(revision) } };
}

/** What goes into storage: the resourceVersion is the store's revision, never the bytes'. */
export function forStorage(obj: ApiObject): ApiObject {
  const { resourceVersion: _rv, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/** Equal as stored (resourceVersion aside): an update that changes nothing is not written. */
export function sameStored(a: ApiObject, b: ApiObject): boolean {
  return stableJson(forStorage(a)) === stableJson(forStorage(b));
}

/** JSON with object keys sorted at every level: equal values give equal text. */
export function stableJson(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) => {
    if (val === null || typeof val !== 'object' || Array.isArray(val)) return val;
    const rec = val as Record<string, unknown>;
    return Object.fromEntries(Object.keys(rec).sort().map((k) => [k, rec[k]]));
  });
}

export const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `obj[field]` as a record (creating it), for strategies that fill defaults. */
export function section(obj: Record<string, unknown>, field: string): Record<string, unknown> {
  const v = obj[field];
  if (isRecord(v)) return v;
  const fresh: Record<string, unknown> = {};
  obj[field] = fresh;
  return fresh;
}
