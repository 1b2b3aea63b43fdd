// Adapters from the registry's stores (anything with GenericStore's get/list
// shape: get throws a NotFound ApiError, list reads a namespace or, with '',
// every namespace) to the lookups the authorizers need, and the server's
// authorizer chain. Reads are MostRecent; a cache can replace them later.
import { isNotFound } from '../../api/errors.js';
import type { Authorizer } from '../types.js';
import { mastersAuthorizer, unionAuthorizer } from './chain.js';
import { NodeAuthorizer } from './node.js';
import type { NodeGraph } from './node.js';
import { RbacAuthorizer, staticRbacSource, unionRbacSource } from './rbac.js';
import type { RbacSource } from './rbac.js';
import type { BindingLike, RoleLike } from './rbac-rules.js';
import { bootstrapPolicy } from './bootstrap.js';

export interface StoredObject {
  metadata: { name?: string; namespace?: string; [k: string]: unknown };
  [k: string]: unknown;
}

/** The part of the registry's GenericStore read here. */
export interface ObjectReader {
  get(namespace: string, name: string): Promise<StoredObject>;
  list(namespace: string, req: { readAt: { kind: 'MostRecent' } }): Promise<{ items: StoredObject[] }>;
}

const MOST_RECENT = { readAt: { kind: 'MostRecent' as const } };

async function getOrUndefined(r: ObjectReader, ns: string, name: string): Promise<StoredObject | undefined> {
  try {
    return await r.get(ns, name);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

export function rbacSourceFromStores(s: { roles: ObjectReader; clusterRoles: ObjectReader; roleBindings: ObjectReader; clusterRoleBindings: ObjectReader }): RbacSource {
  return {
    clusterRoleBindings: async () => (await s.clusterRoleBindings.list('', MOST_RECENT)).items as unknown as BindingLike[],
    roleBindings: async (ns) => (await s.roleBindings.list(ns, MOST_RECENT)).items as unknown as BindingLike[],
    clusterRole: async (name) => (await getOrUndefined(s.clusterRoles, '', name)) as RoleLike | undefined,
    role: async (ns, name) => (await getOrUndefined(s.roles, ns, name)) as RoleLike | undefined,
  };
}

/** Pods bound to a node, by listing the namespace and filtering on spec.nodeName. */
export function nodeGraphFromPods(pods: ObjectReader): NodeGraph {
  return {
    podsOnNode: async (node, ns) => (await pods.list(ns, MOST_RECENT)).items.filter((p) => (p.spec as { nodeName?: unknown } | undefined)?.nodeName === node),
  };
}

/**
 * The server's chain: system:masters, then the node authorizer, then RBAC
 * over the stored policy plus the bootstrap policy (served from memory, so it
 * holds even before anything is stored).
 */
export function serverAuthorizer(opts: { graph: NodeGraph; rbac: RbacSource }): Authorizer {
  return unionAuthorizer(serverAuthorizerChain(opts));
}

/** The same chain as a list, for the front's `authorizers` option (main.ts). */
export function serverAuthorizerChain(opts: { graph: NodeGraph; rbac: RbacSource }): readonly Authorizer[] {
  const boot = bootstrapPolicy();
  const source = unionRbacSource([staticRbacSource({ clusterRoles: boot.clusterRoles, clusterRoleBindings: boot.clusterRoleBindings }), opts.rbac]);
  return [mastersAuthorizer, new NodeAuthorizer(opts.graph), new RbacAuthorizer(source)];
}
