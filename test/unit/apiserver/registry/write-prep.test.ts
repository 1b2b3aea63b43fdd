// The pure halves of create and update, as tables.
import { describe, expect, it } from 'vitest';
import { decodeContinue, encodeContinue } from '../../../../src/apiserver/registry/continue-token.js';
import { configmaps, nodes, pods } from '../../../../src/apiserver/registry/resources/index.js';
import { deleteOnUpdate, prepareUpdate, reconcileNamespace } from '../../../../src/apiserver/registry/write-prep.js';
import type { ApiObject, ObjectMeta } from '../../../../src/apiserver/registry/types.js';

const o = (meta: Partial<ObjectMeta>): ApiObject => ({ metadata: { name: 'x', ...meta } });

describe('reconcileNamespace', () => {
  it.each<[string | undefined, string, boolean, string | undefined | 'error']>([
    [undefined, 'ns', true, 'ns'],
    ['ns', 'ns', true, 'ns'],
    ['other', 'ns', true, 'error'],
    ['ns', '', false, undefined],
    [undefined, '', false, undefined],
  ])('body %s, path %s, namespaced %s', (have, path, namespaced, want) => {
    const obj = o(have === undefined ? {} : { namespace: have });
    if (want === 'error') expect(() => reconcileNamespace(obj, path, namespaced)).toThrow('does not match the namespace sent on the request');
    else {
      reconcileNamespace(obj, path, namespaced);
      expect(obj.metadata.namespace).toBe(want);
    }
  });
});

describe('deleteOnUpdate', () => {
  const due = { deletionTimestamp: 't', deletionGracePeriodSeconds: 0 };
  it.each<[string, Partial<ObjectMeta>, Partial<ObjectMeta>, boolean]>([
    ['last finalizer removed from an object due for deletion', { ...due }, { ...due, finalizers: ['a.io/x'] }, true],
    ['finalizers remain', { ...due, finalizers: ['a.io/y'] }, { ...due, finalizers: ['a.io/x', 'a.io/y'] }, false],
    ['not being deleted', {}, { finalizers: ['a.io/x'] }, false],
    ['graceful deletion still running', { deletionTimestamp: 't', deletionGracePeriodSeconds: 30 }, { deletionTimestamp: 't', deletionGracePeriodSeconds: 30, finalizers: ['a.io/x'] }, false],
    ['had no finalizers', { ...due }, { ...due }, false],
  ])('%s', (_what, now, old, want) => expect(deleteOnUpdate(o(now), o(old))).toBe(want));
});

describe('prepareUpdate', () => {
  const old: ApiObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n', uid: 'u', creationTimestamp: 'c', resourceVersion: '5' }, spec: { podCIDR: '10.0.0.0/24' }, status: { phase: 'old' } };

  it('main resource: status from the stored object, system fields carried', () => {
    const { obj, errors } = prepareUpdate(nodes, { metadata: { name: 'n' }, spec: { podCIDR: '10.0.1.0/24' }, status: { phase: 'new' } }, old, '');
    expect(errors).toEqual([]);
    expect(obj).toEqual({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n', uid: 'u', creationTimestamp: 'c', resourceVersion: '5' }, spec: { podCIDR: '10.0.1.0/24' }, status: { phase: 'old' } });
  });

  it('status subresource: spec from the stored object', () => {
    const { obj } = prepareUpdate(nodes, { metadata: { name: 'n', labels: { a: 'b' } }, spec: { podCIDR: 'changed' }, status: { phase: 'new' } }, old, 'status');
    expect(obj.spec).toEqual({ podCIDR: '10.0.0.0/24' });
    expect(obj.status).toEqual({ phase: 'new' });
    expect(obj.metadata.labels).toEqual({ a: 'b' });
  });

  it('a resource without status keeps what the body says', () => {
    const { obj } = prepareUpdate(configmaps, { metadata: { name: 'x', namespace: 'ns' }, data: { a: 'b' } }, { metadata: { name: 'x', namespace: 'ns', uid: 'u' }, data: {} }, '');
    expect(obj.data).toEqual({ a: 'b' });
  });

  it('pods: validation runs the agent rules and the spec-update rule', () => {
    const pod: ApiObject = { metadata: { name: 'p', namespace: 'ns', uid: 'u' }, spec: { containers: [{ name: 'c', image: 'a' }], restartPolicy: 'Always' } };
    const { errors } = prepareUpdate(pods, { ...pod, spec: { containers: [{ name: 'c', image: 'a' }], restartPolicy: 'Never' } }, pod, '');
    expect(errors.map((e) => e.field)).toEqual(['spec']);
  });
});

describe('continue tokens', () => {
  it('round-trip, opaque base64url', () => {
    const token = encodeContinue({ rv: 42, start: 'ns1/b\x00', issued: 7 });
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeContinue(token)).toEqual({ rv: 42, start: 'ns1/b\x00', issued: 7 });
  });
});
