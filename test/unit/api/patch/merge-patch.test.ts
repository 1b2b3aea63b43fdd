import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../src/api/errors.js';
import { applyMergePatch, applyPatch, createMergePatch, type Json, type JsonObject } from '../../../../src/api/patch/index.js';

describe('JSON Merge Patch (RFC 7386 appendix A)', () => {
  it.each<[Json, Json, Json]>([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('%j + %j', (doc, patch, want) => expect(applyMergePatch(doc, patch)).toEqual(want));

  it('refuses a patch that is not an object (400), as kube-apiserver', () => {
    for (const p of [['c'], null, 'x']) expect(() => applyMergePatch({ a: 1 }, p)).toThrow(ApiError);
  });

  it.each<[JsonObject, JsonObject]>([
    [{ a: 1, b: { c: 2, d: 3 } }, { a: 1, b: { c: 4 }, e: [1] }],
    [{ a: [1, 2] }, { a: [2] }],
    [{ a: 1 }, { a: 1 }],
  ])('createMergePatch round-trips %j → %j', (o, m) => expect(applyMergePatch(o, createMergePatch(o, m))).toEqual(m));

  it('applyPatch dispatches by type and parses the body', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' } } };
    expect(applyPatch('application/merge-patch+json', pod, '{"metadata":{"labels":{"a":null,"c":"d"}}}')).toEqual({ ...pod, metadata: { name: 'p', labels: { c: 'd' } } });
    expect(applyPatch('application/json-patch+json', pod, Buffer.from('[{"op":"replace","path":"/metadata/name","value":"q"}]'))).toMatchObject({ metadata: { name: 'q' } });
    expect(() => applyPatch('application/merge-patch+json', pod, '{bad')).toThrow(/error decoding patch/);
  });
});
