import { describe, expect, it } from 'vitest';
import { clone } from '../../../../src/apiserver/registry/object.js';

describe('clone', () => {
  it.each([
    ['primitives', 'x'],
    ['null', null],
    ['nested objects and arrays', { a: [1, { b: [true, null, 'c'] }], d: { e: {} } }],
    ['an undefined member, kept', { a: undefined, b: 1 }],
    ['bytes (structuredClone)', { raw: new Uint8Array([1, 2, 3]) }],
    ['a null-prototype object', Object.assign(Object.create(null) as object, { a: 1 })],
  ])('copies %s exactly as structuredClone does', (_what, v) => {
    const c = clone(v);
    expect(c).toStrictEqual(v === null || typeof v !== 'object' || Object.getPrototypeOf(v) === null ? structuredClone(v) : v);
    if (v !== null && typeof v === 'object') expect(c).not.toBe(v);
  });

  it('shares nothing with the original', () => {
    const v = { a: { b: [{ c: 1 }] } };
    const c = clone(v);
    c.a.b[0]!.c = 2;
    expect(v.a.b[0]!.c).toBe(1);
  });

  it('keeps an own "__proto__" member as data (bodies are parsed JSON)', () => {
    const v = JSON.parse('{"__proto__":{"x":1},"y":2}') as Record<string, unknown>;
    const c = clone(v);
    expect(Object.getPrototypeOf(c)).toBe(Object.prototype);
    expect(Object.keys(c)).toEqual(['__proto__', 'y']);
    expect(Object.getOwnPropertyDescriptor(c, '__proto__')?.value).toEqual({ x: 1 });
  });
});
