import { describe, expect, it } from 'vitest';
import { clusterrolebindings, clusterroles, rolebindings, roles } from '../../../../../src/apiserver/registry/resources/rbac.js';
import type { ApiObject } from '../../../../../src/apiserver/registry/types.js';

const G = 'rbac.authorization.platform.io';
const role = (rules: unknown[]): ApiObject => ({ metadata: { name: 'r' }, rules });
const binding = (roleRef: unknown, subjects: unknown[] = []): ApiObject => ({ metadata: { name: 'b' }, roleRef, subjects });
const show = (errs: ReturnType<typeof roles.validate>): string[] => errs.map((e) => `${e.field}: ${e.type}${e.detail === undefined ? '' : ` ${e.detail}`}`);

describe('role rules', () => {
  it.each<[string, unknown[], boolean, string[]]>([
    ['resource rule', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], true, []],
    ['no verbs', [{ verbs: [], apiGroups: [''], resources: ['pods'] }], true, ['rules[0].verbs: FieldValueRequired verbs must contain at least one value']],
    ['no groups or resources', [{ verbs: ['get'] }], false, ['rules[0].apiGroups: FieldValueRequired resource rules must supply at least one api group', 'rules[0].resources: FieldValueRequired resource rules must supply at least one resource']],
    ['non-resource in cluster role', [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }], false, []],
    ['non-resource in role', [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }], true, ['rules[0].nonResourceURLs: FieldValueInvalid namespaced rules cannot apply to non-resource URLs']],
    ['both kinds', [{ verbs: ['get'], nonResourceURLs: ['/x'], resources: ['pods'] }], false, ['rules[0].nonResourceURLs: FieldValueInvalid rules cannot apply to both regular resources and non-resource URLs']],
  ])('%s', (_n, rules, namespaced, want) => expect(show((namespaced ? roles : clusterroles).validate(role(rules)))).toEqual(want));
});

describe('bindings', () => {
  const ref = { apiGroup: G, kind: 'ClusterRole', name: 'view' };
  it.each<[string, ApiObject, boolean, string[]]>([
    ['valid', binding(ref, [{ kind: 'User', apiGroup: G, name: 'bob' }, { kind: 'ServiceAccount', name: 'ci', namespace: 'x' }]), true, []],
    ['role ref to Role in cluster binding', binding({ ...ref, kind: 'Role' }), false, ['roleRef.kind: FieldValueNotSupported']],
    ['role ref other group', binding({ ...ref, apiGroup: 'x' }), true, ['roleRef.apiGroup: FieldValueNotSupported']],
    ['role ref without name', binding({ ...ref, name: '' }), true, ['roleRef.name: FieldValueRequired']],
    ['subject without name', binding(ref, [{ kind: 'User', apiGroup: G }]), true, ['subjects[0].name: FieldValueRequired']],
    ['unknown subject kind', binding(ref, [{ kind: 'Robot', name: 'r' }]), true, ['subjects[0].kind: FieldValueNotSupported']],
    ['cluster binding sa without namespace', binding(ref, [{ kind: 'ServiceAccount', name: 'ci' }]), false, ['subjects[0].namespace: FieldValueRequired']],
    ['sa with api group', binding(ref, [{ kind: 'ServiceAccount', name: 'ci', apiGroup: G }]), true, ['subjects[0].apiGroup: FieldValueNotSupported']],
  ])('%s', (_n, obj, namespaced, want) => expect(show((namespaced ? rolebindings : clusterrolebindings).validate(obj))).toEqual(want));

  it('defaults subject api groups', () => {
    const obj = binding(ref, [{ kind: 'User', name: 'a' }, { kind: 'Group', name: 'g' }, { kind: 'ServiceAccount', name: 's' }]);
    rolebindings.defaults?.(obj);
    expect(obj.subjects).toEqual([{ kind: 'User', name: 'a', apiGroup: G }, { kind: 'Group', name: 'g', apiGroup: G }, { kind: 'ServiceAccount', name: 's', apiGroup: '' }]);
  });

  it('keeps roleRef fixed', () => {
    expect(show(clusterrolebindings.validateUpdate?.(binding({ ...ref, name: 'edit' }), binding(ref)) ?? [])).toEqual(['roleRef: FieldValueInvalid cannot change roleRef']);
    expect(rolebindings.validateUpdate?.(binding(ref, [{ kind: 'User', name: 'x' }]), binding(ref))).toEqual([]);
  });
});
