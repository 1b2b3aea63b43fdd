import { describe, expect, it } from 'vitest';
import { fieldErrorString } from '../../../../src/api/errors.js';
import { isDns1123Label, isLabelValue, isQualifiedName, isValidPathSegmentName, nameIsDnsSubdomain } from '../../../../src/apiserver/validation/names.js';
import { nameValidator, validateObjectMeta, validateObjectMetaUpdate } from '../../../../src/apiserver/validation/object-meta.js';
import type { ObjectMeta } from '../../../../src/apiserver/registry/types.js';

const SUBDOMAIN_MSG = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

describe('name syntaxes (upstream messages)', () => {
  it.each([
    ['a', []],
    ['a-b.c', []],
    ['A', [SUBDOMAIN_MSG]],
    ['a'.repeat(254), ['must be no more than 253 characters']],
  ])('subdomain %s', (name, want) => expect(nameIsDnsSubdomain(name, false)).toEqual(want));

  it('generateName prefixes may end with a dash', () => {
    expect(nameIsDnsSubdomain('gen-', true)).toEqual([]);
    expect(nameIsDnsSubdomain('gen-', false)).toEqual([SUBDOMAIN_MSG]);
  });

  it.each([
    ['ns1', 0],
    ['a.b', 1],
    ['x'.repeat(64), 1],
  ])('label %s has %i problems', (name, n) => expect(isDns1123Label(name)).toHaveLength(n));

  it.each([
    ['app', []],
    ['example.com/app', []],
    ['/app', ['prefix part must be non-empty']],
    ['a/b/c', ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]],
    ['example.com/', ['name part must be non-empty', "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"]],
  ])('qualified name %s', (name, want) => expect(isQualifiedName(name)).toEqual(want));

  it.each([
    ['', 0],
    ['v1', 0],
    ['-x', 1],
    ['x'.repeat(64), 1],
  ])('label value %s has %i problems', (v, n) => expect(isLabelValue(v)).toHaveLength(n));

  it.each([
    ['a:b', false, []],
    ['..', false, ["may not be '..'"]],
    ['a/b', false, ["may not contain '/'"]],
    ['a%', true, ["may not contain '%'"]],
  ])('path segment %s', (name, prefix, want) => expect(isValidPathSegmentName(name, prefix)).toEqual(want));
});

const check = (meta: ObjectMeta, namespaced = true): string[] => validateObjectMeta(meta, namespaced, nameValidator('subdomain')).map(fieldErrorString);

describe('validateObjectMeta', () => {
  it.each<[string, ObjectMeta, boolean, string[]]>([
    ['fine', { name: 'a', namespace: 'ns' }, true, []],
    ['no name', { namespace: 'ns' }, true, ['metadata.name: Required value: name or generateName is required']],
    ['no namespace on a namespaced kind', { name: 'a' }, true, ['metadata.namespace: Required value']],
    ['a namespace on a cluster kind', { name: 'a', namespace: 'ns' }, false, ['metadata.namespace: Forbidden: not allowed on this type']],
    ['bad label value', { name: 'a', namespace: 'ns', labels: { k: '-' } }, true, [expect.stringMatching(/^metadata\.labels: Invalid value: "-": a valid label value must be/) as unknown as string]],
    ['bad annotation key', { name: 'a', namespace: 'ns', annotations: { 'a/b/c': '' } }, true, [expect.stringMatching(/^metadata\.annotations: Invalid value: "a\/b\/c": a qualified name/) as unknown as string]],
    ['annotations too big', { name: 'a', namespace: 'ns', annotations: { k: 'x'.repeat(256 * 1024) } }, true, ['metadata.annotations: Too long: must have at most 262144 bytes']],
    ['unqualified finalizer', { name: 'a', namespace: 'ns', finalizers: ['mine'] }, true, ['metadata.finalizers: Invalid value: "mine": name is neither a standard finalizer name nor is it fully qualified']],
    ['wrong JSON types are named and nothing else is checked', { name: 7, namespace: 'ns', labels: { a: 1 } } as unknown as ObjectMeta, true, ['metadata.name: Invalid value: 7: must be a string', 'metadata.labels: Invalid value: {"a":1}: must be an object of strings']],
    ['standard finalizer', { name: 'a', namespace: 'ns', finalizers: ['orphan', 'example.com/x'] }, true, []],
    ['owner reference without uid', { name: 'a', namespace: 'ns', ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n', uid: '' }] }, true, ['metadata.ownerReferences[0].uid: Invalid value: "": uid must not be empty']],
  ])('%s', (_what, meta, namespaced, want) => expect(check(meta, namespaced)).toEqual(want));
});

describe('validateObjectMetaUpdate', () => {
  const old: ObjectMeta = { name: 'a', namespace: 'ns', uid: 'u1', creationTimestamp: '2026-01-01T00:00:00Z' };
  it.each<[string, ObjectMeta, string[]]>([
    ['unchanged', { ...old }, []],
    ['uid', { ...old, uid: 'u2' }, ['metadata.uid: Invalid value: "u2": field is immutable']],
    ['deletionTimestamp', { ...old, deletionTimestamp: '2026-01-01T00:00:00Z' }, ['metadata.deletionTimestamp: Invalid value: "2026-01-01T00:00:00Z": field is immutable']],
  ])('%s', (_what, meta, want) => expect(validateObjectMetaUpdate(meta, old, true, nameValidator('subdomain')).map(fieldErrorString)).toEqual(want));

  it('no new finalizers on an object being deleted', () => {
    const deleting = { ...old, deletionTimestamp: 'x', finalizers: ['example.com/a'] };
    const errs = validateObjectMetaUpdate({ ...deleting, finalizers: ['example.com/a', 'example.com/b'] }, deleting, true, nameValidator('subdomain'));
    expect(errs.map(fieldErrorString)).toEqual(['metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ["example.com/b"]']);
  });
});
