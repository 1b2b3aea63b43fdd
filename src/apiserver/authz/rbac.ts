// The RBAC authorizer: ClusterRoleBindings first (cluster-wide grants), then
// the RoleBindings of the request's namespace, whose roleRef may name a Role
// of that namespace or a ClusterRole (granted in that namespace only).
// aggregationRule is not evaluated: an aggregated ClusterRole grants the rules
// it carries, so the integrator must store aggregated rules filled in.
// Called once per request by the front's authorization filter, concurrently.
import type { AuthorizationAttributes, Authorizer, Decision } from '../types.js';
import { appliesTo, describeSubject, rulesAllow } from './rbac-rules.js';
import type { BindingLike, RoleLike, RoleRef } from './rbac-rules.js';

/**
 * Where the authorizer reads policy from (the registry's stores, or a fixed
 * set in tests). Reads may be served from a cache; they should be cheap, as
 * every request calls them. Roles that do not exist resolve to undefined.
 */
export interface RbacSource {
  clusterRoleBindings(): Promise<readonly BindingLike[]>;
  roleBindings(namespace: string): Promise<readonly BindingLike[]>;
  clusterRole(name: string): Promise<RoleLike | undefined>;
  role(namespace: string, name: string): Promise<RoleLike | undefined>;
}

/** A source over fixed objects (bootstrap policy, tests). */
export function staticRbacSource(objects: { roles?: readonly RoleLike[]; clusterRoles?: readonly RoleLike[]; roleBindings?: readonly BindingLike[]; clusterRoleBindings?: readonly BindingLike[] }): RbacSource {
  return {
    clusterRoleBindings: () => Promise.resolve(objects.clusterRoleBindings ?? []),
    roleBindings: (ns) => Promise.resolve((objects.roleBindings ?? []).filter((b) => b.metadata.namespace === ns)),
    clusterRole: (name) => Promise.resolve((objects.clusterRoles ?? []).find((r) => r.metadata.name === name)),
    role: (ns, name) => Promise.resolve((objects.roles ?? []).find((r) => r.metadata.namespace === ns && r.metadata.name === name)),
  };
}

/** Several sources read as one (the bootstrap policy beside the stored objects). */
export function unionRbacSource(sources: readonly RbacSource[]): RbacSource {
  const first = async <T>(f: (s: RbacSource) => Promise<T | undefined>): Promise<T | undefined> => {
    for (const s of sources) {
      const v = await f(s);
      if (v !== undefined) return v;
    }
    return undefined;
  };
  return {
    clusterRoleBindings: async () => (await Promise.all(sources.map((s) => s.clusterRoleBindings()))).flat(),
    roleBindings: async (ns) => (await Promise.all(sources.map((s) => s.roleBindings(ns)))).flat(),
    clusterRole: (name) => first((s) => s.clusterRole(name)),
    role: (ns, name) => first((s) => s.role(ns, name)),
  };
}

const NOT_FOUND = (kind: string, name: string): string => `${kind}.rbac.authorization.platform.io "${name}" not found`;

export class RbacAuthorizer implements Authorizer {
  readonly #source: RbacSource;

  constructor(source: RbacSource) {
    this.#source = source;
  }

  async #role(ref: RoleRef, namespace: string, errors: string[]): Promise<RoleLike | undefined> {
    if (ref.kind === 'ClusterRole') {
      const r = await this.#source.clusterRole(ref.name);
      if (r === undefined) errors.push(NOT_FOUND('clusterrole', ref.name));
      return r;
    }
    if (ref.kind === 'Role' && namespace !== '') {
      const r = await this.#source.role(namespace, ref.name);
      if (r === undefined) errors.push(NOT_FOUND('role', ref.name));
      return r;
    }
    return undefined;
  }

  async authorize(attrs: AuthorizationAttributes): Promise<Decision> {
    const errors: string[] = [];
    for (const b of await this.#source.clusterRoleBindings()) {
      const subject = appliesTo(b, attrs.user);
      if (subject === undefined) continue;
      const role = await this.#role(b.roleRef, '', errors);
      if (role !== undefined && rulesAllow(attrs, role.rules ?? [])) {
        return { allowed: true, reason: `RBAC: allowed by ClusterRoleBinding "${b.metadata.name ?? ''}" of ClusterRole "${b.roleRef.name}" to ${describeSubject(subject, '')}` };
      }
    }
    if (attrs.namespace !== '') {
      for (const b of await this.#source.roleBindings(attrs.namespace)) {
        const subject = appliesTo(b, attrs.user);
        if (subject === undefined) continue;
        const role = await this.#role(b.roleRef, attrs.namespace, errors);
        if (role !== undefined && rulesAllow(attrs, role.rules ?? [])) {
          return { allowed: true, reason: `RBAC: allowed by RoleBinding "${b.metadata.name ?? ''}/${attrs.namespace}" of ${b.roleRef.kind} "${b.roleRef.name}" to ${describeSubject(subject, attrs.namespace)}` };
        }
      }
    }
    return { allowed: false, noOpinion: true, reason: errors.length === 0 ? '' : `RBAC: [${errors.join(', ')}]` };
  }
}
