// RBAC's pure decisions (upstream's rbac/v1 helpers and the rule-resolution
// visitor): does one policy rule cover a request, does one binding's subject
// name the user. No lookups here; rbac.ts walks the bindings.
import type { AuthorizationAttributes, UserInfo } from '../types.js';

export const RBAC_GROUP = 'rbac.authorization.platform.io';

/** One rule of a Role or ClusterRole (§5 rule 5). `*` matches anything in verbs, apiGroups, resources. */
export interface PolicyRule {
  verbs: readonly string[];
  apiGroups?: readonly string[];
  resources?: readonly string[];
  resourceNames?: readonly string[];
  nonResourceURLs?: readonly string[];
}

export interface Subject {
  kind: string;
  name: string;
  namespace?: string;
  apiGroup?: string;
}

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

/** A Role or ClusterRole as far as authorization reads it (aggregationRule is not evaluated). */
export interface RoleLike {
  metadata: { name?: string; namespace?: string };
  rules?: readonly PolicyRule[];
}

/** A RoleBinding or ClusterRoleBinding as far as authorization reads it. */
export interface BindingLike {
  metadata: { name?: string; namespace?: string };
  subjects?: readonly Subject[];
  roleRef: RoleRef;
}

const SA_PREFIX = 'system:serviceaccount:';

/** `system:serviceaccount:<ns>:<name>`, the user name a service account authenticates as. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SA_PREFIX}${namespace}:${name}`;
}

/** The namespace and name of a service-account user name, or undefined for other users. */
export function parseServiceAccountUsername(user: string): { namespace: string; name: string } | undefined {
  if (!user.startsWith(SA_PREFIX)) return undefined;
  const parts = user.slice(SA_PREFIX.length).split(':');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return undefined;
  return { namespace: parts[0]!, name: parts[1]! };
}

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === '*' || v === verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === '*' || g === group);
}

/** `*`, the exact `resource` or `resource/sub`, and `*\/sub` for any resource's `sub`. */
export function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource === '' ? resource : `${resource}/${subresource}`;
  return (rule.resources ?? []).some((r) => r === '*' || r === combined || (subresource !== '' && r === `*/${subresource}`));
}

/** An empty resourceNames list allows every name; a non-empty one only requests that carry one of them. */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  if (names.length === 0) return true;
  return name !== '' && names.includes(name);
}

/** `*`, an exact path, or a prefix ending in `*`. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some((u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1))));
}

/** upstream's RuleAllows: resource rules for resource requests, nonResourceURLs for the others. */
export function ruleAllows(attrs: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (attrs.isResourceRequest) {
    return verbMatches(rule, attrs.verb) && apiGroupMatches(rule, attrs.apiGroup) && resourceMatches(rule, attrs.resource, attrs.subresource) && resourceNameMatches(rule, attrs.name);
  }
  return verbMatches(rule, attrs.verb) && nonResourceURLMatches(rule, attrs.path);
}

export function rulesAllow(attrs: AuthorizationAttributes, rules: readonly PolicyRule[]): boolean {
  return rules.some((r) => ruleAllows(attrs, r));
}

/**
 * Whether a binding's subject names the user. A ServiceAccount subject
 * without a namespace means the binding's own namespace (RoleBindings only).
 */
export function subjectMatches(subject: Subject, user: UserInfo, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const ns = subject.namespace !== undefined && subject.namespace !== '' ? subject.namespace : bindingNamespace;
      return ns !== '' && user.name === serviceAccountUsername(ns, subject.name);
    }
    default:
      return false;
  }
}

/** The first subject of the binding that names the user, for the allow reason. */
export function appliesTo(binding: BindingLike, user: UserInfo): Subject | undefined {
  return (binding.subjects ?? []).find((s) => subjectMatches(s, user, binding.metadata.namespace ?? ''));
}

/** `User "alice"`, `Group "system:masters"`, `ServiceAccount "ns/name"`, as upstream's describeSubject. */
export function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') {
    const ns = s.namespace !== undefined && s.namespace !== '' ? s.namespace : bindingNamespace;
    return `${s.kind} "${ns}/${s.name}"`;
  }
  return `${s.kind} "${s.name}"`;
}
