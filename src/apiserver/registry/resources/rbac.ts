// RBAC objects (rbac.authorization.platform.io/v1): Roles and RoleBindings
// (namespaced), ClusterRoles and ClusterRoleBindings, validated as upstream's
// pkg/apis/rbac/validation (rules need verbs and either apiGroups+resources or
// nonResourceURLs; subjects of known kinds; roleRef fixed after create),
// subjects' apiGroup defaulted as SetDefaults_Subject. Escalation checks
// (creating a role or binding that grants more than the creator holds) are
// NOT done: anyone allowed to write RBAC objects can grant anything.
import type { FieldError } from '../../../api/errors.js';
import { isValidPathSegmentName, nameIsDnsSubdomain } from '../../validation/names.js';
import { RBAC_GROUP } from '../../authz/rbac-rules.js';
import type { ApiObject, ResourceInfo, Strategy } from '../types.js';
import { OBJECT_VERBS } from './common.js';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const s = (v: unknown): string => (typeof v === 'string' ? v : '');

function validateRule(rule: unknown, namespaced: boolean, field: string): FieldError[] {
  const r = isRec(rule) ? rule : {};
  const errs: FieldError[] = [];
  if (list(r.verbs).length === 0) errs.push({ type: 'FieldValueRequired', field: `${field}.verbs`, detail: 'verbs must contain at least one value' });
  const urls = list(r.nonResourceURLs);
  if (urls.length > 0) {
    if (namespaced) errs.push({ type: 'FieldValueInvalid', field: `${field}.nonResourceURLs`, value: urls, detail: 'namespaced rules cannot apply to non-resource URLs' });
    if (list(r.apiGroups).length > 0 || list(r.resources).length > 0 || list(r.resourceNames).length > 0) {
      errs.push({ type: 'FieldValueInvalid', field: `${field}.nonResourceURLs`, value: urls, detail: 'rules cannot apply to both regular resources and non-resource URLs' });
    }
    return errs;
  }
  if (list(r.apiGroups).length === 0) errs.push({ type: 'FieldValueRequired', field: `${field}.apiGroups`, detail: 'resource rules must supply at least one api group' });
  if (list(r.resources).length === 0) errs.push({ type: 'FieldValueRequired', field: `${field}.resources`, detail: 'resource rules must supply at least one resource' });
  return errs;
}

const validateRules = (obj: ApiObject, namespaced: boolean): FieldError[] => list(obj.rules).flatMap((r, i) => validateRule(r, namespaced, `rules[${i}]`));

function validateSubject(subject: unknown, namespaced: boolean, field: string): FieldError[] {
  const sub = isRec(subject) ? subject : {};
  const errs: FieldError[] = [];
  const name = s(sub.name);
  if (name === '') errs.push({ type: 'FieldValueRequired', field: `${field}.name` });
  switch (sub.kind) {
    case 'ServiceAccount':
      if (name !== '') for (const m of nameIsDnsSubdomain(name, false)) errs.push({ type: 'FieldValueInvalid', field: `${field}.name`, value: name, detail: m });
      if (s(sub.apiGroup) !== '') errs.push({ type: 'FieldValueNotSupported', field: `${field}.apiGroup`, value: sub.apiGroup, supported: [''] });
      if (!namespaced && s(sub.namespace) === '') errs.push({ type: 'FieldValueRequired', field: `${field}.namespace` });
      break;
    case 'User':
    case 'Group':
      if (sub.apiGroup !== RBAC_GROUP) errs.push({ type: 'FieldValueNotSupported', field: `${field}.apiGroup`, value: sub.apiGroup ?? '', supported: [RBAC_GROUP] });
      break;
    default:
      errs.push({ type: 'FieldValueNotSupported', field: `${field}.kind`, value: sub.kind ?? '', supported: ['ServiceAccount', 'User', 'Group'] });
  }
  return errs;
}

function validateBinding(obj: ApiObject, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = isRec(obj.roleRef) ? obj.roleRef : {};
  if (ref.apiGroup !== RBAC_GROUP) errs.push({ type: 'FieldValueNotSupported', field: 'roleRef.apiGroup', value: ref.apiGroup ?? '', supported: [RBAC_GROUP] });
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(s(ref.kind))) errs.push({ type: 'FieldValueNotSupported', field: 'roleRef.kind', value: ref.kind ?? '', supported: kinds });
  const name = s(ref.name);
  if (name === '') errs.push({ type: 'FieldValueRequired', field: 'roleRef.name' });
  else for (const m of isValidPathSegmentName(name, false)) errs.push({ type: 'FieldValueInvalid', field: 'roleRef.name', value: name, detail: m });
  list(obj.subjects).forEach((sub, i) => errs.push(...validateSubject(sub, namespaced, `subjects[${i}]`)));
  return errs;
}

/** SetDefaults_Subject: User and Group subjects belong to the RBAC group, ServiceAccounts to the core group. */
function defaultSubjects(obj: ApiObject): void {
  for (const sub of list(obj.subjects)) {
    if (!isRec(sub) || sub.apiGroup !== undefined) continue;
    if (sub.kind === 'User' || sub.kind === 'Group') sub.apiGroup = RBAC_GROUP;
    else if (sub.kind === 'ServiceAccount') sub.apiGroup = '';
  }
}

const roleRefFixed = (obj: ApiObject, old: ApiObject): FieldError[] =>
  JSON.stringify(obj.roleRef) === JSON.stringify(old.roleRef) ? [] : [{ type: 'FieldValueInvalid', field: 'roleRef', value: obj.roleRef, detail: 'cannot change roleRef' }];

const info = (resource: string, kind: string, namespaced: boolean): ResourceInfo => ({ group: RBAC_GROUP, version: 'v1', resource, kind, singular: kind.toLowerCase(), namespaced, verbs: OBJECT_VERBS });

export const roles: Strategy = {
  info: info('roles', 'Role', true),
  nameRule: 'path-segment',
  allowCreateOnUpdate: true,
  validate: (obj) => validateRules(obj, true),
};

export const clusterroles: Strategy = {
  info: info('clusterroles', 'ClusterRole', false),
  nameRule: 'path-segment',
  allowCreateOnUpdate: true,
  validate: (obj) => validateRules(obj, false),
};

export const rolebindings: Strategy = {
  info: info('rolebindings', 'RoleBinding', true),
  nameRule: 'path-segment',
  allowCreateOnUpdate: true,
  defaults: defaultSubjects,
  validate: (obj) => validateBinding(obj, true),
  validateUpdate: roleRefFixed,
};

export const clusterrolebindings: Strategy = {
  info: info('clusterrolebindings', 'ClusterRoleBinding', false),
  nameRule: 'path-segment',
  allowCreateOnUpdate: true,
  defaults: defaultSubjects,
  validate: (obj) => validateBinding(obj, false),
  validateUpdate: roleRefFixed,
};

export const RBAC_STRATEGIES: readonly Strategy[] = [clusterrolebindings, clusterroles, rolebindings, roles];
