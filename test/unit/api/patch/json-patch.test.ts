import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../src/api/errors.js';
import { applyJsonPatch, toJsonPatch, type Json } from '../../../../src/api/patch/index.js';
import { thrownApiError } from '../../../helpers/api-error.js';

const run = (doc: Json, ops: Json): Json => applyJsonPatch(doc, toJsonPatch(ops));
const thrown = thrownApiError;

describe('JSON Patch (RFC 6902 appendix A cases)', () => {
  it.each<[string, Json, Json, Json]>([
    ['add an object member', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }], { foo: 'bar', baz: 'qux' }],
    ['add an array element', { foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }], { foo: ['bar', 'qux', 'baz'] }],
    ['append with -', { foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: 'x' }], { foo: ['bar', 'x'] }],
    ['remove an object member', { baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }], { foo: 'bar' }],
    ['remove an array element', { foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }], { foo: ['bar', 'baz'] }],
    ['replace a value', { baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }], { baz: 'boo', foo: 'bar' }],
    ['move a value', { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } }, [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }], { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } }],
    ['move an array element', { foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }], { foo: ['all', 'cows', 'eat', 'grass'] }],
    ['copy', { a: { b: 1 } }, [{ op: 'copy', from: '/a', path: '/c' }], { a: { b: 1 }, c: { b: 1 } }],
    ['test then add', { baz: 'qux', foo: ['a', 2, 'c'] }, [{ op: 'test', path: '/baz', value: 'qux' }, { op: 'test', path: '/foo/1', value: 2 }, { op: 'add', path: '/ok', value: true }], { baz: 'qux', foo: ['a', 2, 'c'], ok: true }],
    ['add a nested member object', { foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }], { foo: 'bar', child: { grandchild: {} } }],
    ['escaped pointers', { 'a/b': 1, 'm~n': 2 }, [{ op: 'replace', path: '/a~1b', value: 3 }, { op: 'remove', path: '/m~0n' }], { 'a/b': 3 }],
    ['add an array value', { foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }], { foo: ['bar', ['abc', 'def']] }],
    ['label on an object without labels fails... but adding the map works', { metadata: {} }, [{ op: 'add', path: '/metadata/labels', value: { a: 'b' } }], { metadata: { labels: { a: 'b' } } }],
    ['test for null on a missing member', { a: 1 }, [{ op: 'test', path: '/b', value: null }], { a: 1 }],
  ])('%s', (_name, doc, ops, want) => expect(run(doc, ops)).toEqual(want));

  it('does not modify its input, and fails whole', () => {
    const doc = { a: { b: 1 } };
    expect(() => run(doc, [{ op: 'add', path: '/a/c', value: 2 }, { op: 'test', path: '/a/b', value: 2 }])).toThrow(ApiError);
    expect(doc).toEqual({ a: { b: 1 } });
  });

  it.each<[string, Json, Json, string]>([
    ['failed test', { baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }], 'testing value /baz failed: test failed'],
    ['add to a missing parent', { foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }], 'add operation does not apply: doc is missing path: "/baz/bat": missing value'],
    ['remove a missing key', { foo: 'bar' }, [{ op: 'remove', path: '/x' }], "error in remove for path: '/x': Unable to remove nonexistent key: x: missing value"],
    ['replace a missing key', { foo: 'bar' }, [{ op: 'replace', path: '/x', value: 1 }], 'replace operation does not apply: doc is missing key: /x: missing value'],
    ['index out of range', { foo: [1] }, [{ op: 'add', path: '/foo/5', value: 1 }], 'Unable to access invalid index: 5: invalid index referenced'],
    ['leading zero index', { foo: [1, 2] }, [{ op: 'remove', path: '/foo/01' }], 'Unable to access invalid index: 01: invalid index referenced'],
    ['move from a missing path', { a: 1 }, [{ op: 'move', from: '/b', path: '/c' }], 'move operation does not apply: doc is missing from path: /b: missing value'],
    ['move into own child', { a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a/b/c' }], 'move operation does not apply: cannot move /a into its own child /a/b/c'],
    ['replace under a missing parent', { a: 1 }, [{ op: 'replace', path: '/b/c', value: 1 }], 'replace operation does not apply: doc is missing path: /b/c: missing value'],
    ['test under a missing parent', { a: 1 }, [{ op: 'test', path: '/b/c', value: 1 }], 'test operation does not apply: is missing path: /b/c: missing value'],
    ['copy from a missing parent', { a: 1 }, [{ op: 'copy', from: '/b/c', path: '/d' }], 'copy operation does not apply: doc is missing from path: /b/c: missing value'],
    ['copy to a missing parent', { a: 1 }, [{ op: 'copy', from: '/a', path: '/x/y' }], 'copy operation does not apply: doc is missing destination path: /x/y: missing value'],
    ['remove under a missing parent', { a: 1 }, [{ op: 'remove', path: '/b/c' }], 'remove operation does not apply: doc is missing path: "/b/c": missing value'],
    ['unknown op', { a: 1 }, [{ op: 'frob', path: '/a' }], 'Unexpected kind: frob'],
    ['missing value', { a: 1 }, [{ op: 'add', path: '/b' }], 'add operation missing value field'],
  ])('%s is a 422', (_n, doc, ops, detail) => {
    const e = thrown(() => run(doc, ops));
    expect([e.code, e.reason, e.message]).toEqual([422, 'Invalid', 'the server rejected our request due to an error in our request']);
    expect(e.details?.causes?.[0]?.message).toBe(detail);
  });

  it('a document that is not a list is a 400; too many operations a 413', () => {
    expect(thrown(() => toJsonPatch({ op: 'add' })).code).toBe(400);
    expect(thrown(() => toJsonPatch(Array.from({ length: 10001 }, () => ({ op: 'test', path: '', value: 1 })))).code).toBe(413);
  });
});
