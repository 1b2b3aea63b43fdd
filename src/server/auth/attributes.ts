// The kubelet's authorization attributes of a request on the node's port
// (server/auth.go): the node as the resource, the verb from the method, the
// subresource from whole path segments. Pure; the HTTP core calls it once per
// authenticated request through authorizeRequest.
import type { RequestAttributes, UserInfo } from '../types.js';

const VERBS: ReadonlyMap<string, string> = new Map([
  ['GET', 'get'],
  // The contract maps HEAD and OPTIONS to get (upstream leaves the verb empty, which no RBAC rule matches).
  ['HEAD', 'get'],
  ['OPTIONS', 'get'],
  ['POST', 'create'],
  ['PUT', 'update'],
  ['PATCH', 'patch'],
  ['DELETE', 'delete'],
]);

/** The verb for an HTTP method; '' for a method upstream does not map either. */
export const verbOf = (method: string): string => VERBS.get(method.toUpperCase()) ?? '';

/** upstream's isSubpath: `path` is `prefix` or lies under it on a whole segment. */
export function isSubpath(path: string, prefix: string): boolean {
  return path === prefix || (path.startsWith(prefix) && path.charAt(prefix.length) === '/');
}

/** Paths that only ever needed nodes/proxy get a specific subresource first, as the fine-grained kubelet authz (KEP-2862). */
const FINE_GRAINED: ReadonlyArray<readonly [string, string]> = [
  ['/pods', 'pods'],
  ['/runningpods', 'pods'],
  ['/healthz', 'healthz'],
  ['/configz', 'configz'],
  // Upstream authorizes /spec as proxy; `spec` is asked first so a role can grant it alone without breaking nodes/proxy roles.
  ['/spec', 'spec'],
];

/** Paths whose subresource replaces proxy (upstream since long before 1.28). */
const EXCLUSIVE: ReadonlyArray<readonly [string, string]> = [
  ['/stats', 'stats'],
  ['/metrics', 'metrics'],
  ['/logs', 'log'],
];

/** The subresources to ask, in order; the request is allowed when any is. Never empty. */
export function subresourcesOf(path: string): string[] {
  for (const [prefix, sub] of EXCLUSIVE) if (isSubpath(path, prefix)) return [sub];
  for (const [prefix, sub] of FINE_GRAINED) if (isSubpath(path, prefix)) return [sub, 'proxy'];
  return ['proxy'];
}

/** One RequestAttributes per subresource to ask, in order. */
export function requestAttributes(r: { user: UserInfo; method: string; path: string; nodeName: string }): RequestAttributes[] {
  const verb = verbOf(r.method);
  return subresourcesOf(r.path).map((subresource) => ({ user: r.user, verb, apiGroup: '', apiVersion: 'v1', resource: 'nodes', subresource, name: r.nodeName, path: r.path }));
}

/** The 403 body's message, as upstream's fine-grained filter words it (Go's %v of a string slice). */
export function forbiddenMessage(user: UserInfo, verb: string, subresources: readonly string[]): string {
  return `Forbidden (user=${user.name}, verb=${verb}, resource=nodes, subresource(s)=[${subresources.join(' ')}])`;
}
