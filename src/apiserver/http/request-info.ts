// What a request is about, from its method, path and query alone, by
// kube-apiserver's RequestInfoFactory rules (1.28). Pure; called once per
// request before authentication, so authorization and the handlers agree on
// verb, group, version, namespace, resource, subresource and name.
import { apiErrors } from '../../api/errors.js';
import type { RequestInfo } from '../types.js';

const API_PREFIXES = new Set(['api', 'apis']);
const GROUPLESS_PREFIXES = new Set(['api']);
/** Verbs given as a path segment after the version (deprecated upstream, still parsed). */
const SPECIAL_VERBS = new Set(['proxy', 'watch']);
const SPECIAL_VERBS_NO_SUBRESOURCES = new Set(['proxy']);
/** Subresources of a namespace itself: `/api/v1/namespaces/<ns>/status` is the namespace's, not a resource "status". */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

function splitPath(path: string): string[] {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? [] : trimmed.split('/');
}

const METHOD_VERBS: Readonly<Record<string, string>> = { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** Go's query-to-bool conversion: present and not "false"/"0" is true. */
function queryBool(values: readonly string[]): boolean {
  const v = values[0];
  return v !== undefined && v.toLowerCase() !== 'false' && v !== '0';
}

/**
 * The name a list or watch is restricted to by `fieldSelector=metadata.name=<x>`
 * (or `==`), when it is a valid path segment: authorization then sees a
 * single-object request (the node authorizer relies on it).
 */
export function nameFromFieldSelector(selector: string | null): string {
  if (selector === null) return '';
  for (const term of selector.split(',')) {
    const m = /^\s*metadata\.name\s*==?\s*(.*?)\s*$/.exec(term);
    if (m === null) continue;
    const name = m[1]!;
    if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('%')) return '';
    return name;
  }
  return '';
}

/** Throws a 500 ApiError for a path it cannot interpret (`/api/v1/watch`), as upstream does. */
export function requestInfoFor(method: string, url: URL): RequestInfo {
  const path = url.pathname;
  const nonResource: RequestInfo = { isResourceRequest: false, path, verb: method.toLowerCase(), apiPrefix: '', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '', parts: [] };
  let parts = splitPath(path);
  if (parts.length < 3 || !API_PREFIXES.has(parts[0]!)) return nonResource;
  const apiPrefix = parts[0] as 'api' | 'apis';
  parts = parts.slice(1);
  let apiGroup = '';
  if (!GROUPLESS_PREFIXES.has(apiPrefix)) {
    if (parts.length < 3) return nonResource;
    apiGroup = parts[0]!;
    parts = parts.slice(1);
  }
  const apiVersion = parts[0]!;
  parts = parts.slice(1);
  let verb: string;
  if (SPECIAL_VERBS.has(parts[0]!)) {
    if (parts.length < 2) throw apiErrors.internal(new Error(`failed to create RequestInfo: unable to determine kind and namespace from url, ${path}`));
    verb = parts[0]!;
    parts = parts.slice(1);
  } else verb = METHOD_VERBS[method.toUpperCase()] ?? '';

  let namespace = '';
  if (parts[0] === 'namespaces' && parts.length > 1) {
    namespace = parts[1]!;
    if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2]!)) parts = parts.slice(2);
  }
  const resource = parts[0] ?? '';
  let name = parts[1] ?? '';
  const subresource = parts.length >= 3 && !SPECIAL_VERBS_NO_SUBRESOURCES.has(verb) ? parts[2]! : '';

  if (name === '' && verb === 'get') {
    verb = queryBool(url.searchParams.getAll('watch')) ? 'watch' : 'list';
    name = nameFromFieldSelector(url.searchParams.get('fieldSelector'));
  }
  if (name === '' && verb === 'delete') verb = 'deletecollection';
  return { isResourceRequest: true, path, verb, apiPrefix, apiGroup, apiVersion, namespace, resource, subresource, name, parts };
}
