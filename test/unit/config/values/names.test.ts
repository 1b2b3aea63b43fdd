import { describe, expect, it } from 'vitest';
import { isDns1123Subdomain, isLabelValue, isQualifiedName } from '../../../../src/config/values/names.js';

describe('isQualifiedName', () => {
  it.each([
    ['a'],
    ['MyName'],
    ['my.name'],
    ['123-abc'],
    ['a_b'],
    ['example.com/MyName'],
    ['node.platform.io/x'],
    ['x'.repeat(63)],
    [`${'a'.repeat(253)}/b`],
  ])('accepts %j', (name) => {
    expect(isQualifiedName(name)).toBeUndefined();
  });

  it.each([
    ['', 'name part must be non-empty'],
    ['-a', "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"],
    ['a-', 'name part must consist of alphanumeric'],
    ['a b', 'name part must consist of alphanumeric'],
    ['x'.repeat(64), 'name part must be no more than 63 characters'],
    ['/a', 'prefix part must be non-empty'],
    ['Example.com/a', 'prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters'],
    [`${'a'.repeat(254)}/b`, 'prefix part must be no more than 253 characters'],
    ['a/', 'name part must be non-empty'],
    ['a/b/c', 'a qualified name must consist of alphanumeric characters'],
  ])('rejects %j', (name, message) => {
    expect(isQualifiedName(name)).toContain(message);
  });
});

describe('isLabelValue', () => {
  it.each([[''], ['v'], ['My_Value-1.2'], ['x'.repeat(63)]])('accepts %j', (v) => {
    expect(isLabelValue(v)).toBeUndefined();
  });

  it.each([
    ['x'.repeat(64), 'must be no more than 63 characters'],
    ['-v', 'a valid label value must be an empty string or must consist of alphanumeric characters'],
    ['a/b', 'a valid label value must be an empty string'],
    ['a b', 'a valid label value must be an empty string'],
  ])('rejects %j', (v, message) => {
    expect(isLabelValue(v)).toContain(message);
  });
});

describe('isDns1123Subdomain', () => {
  it.each([['example.com'], ['a'], ['a-b.c']])('accepts %j', (v) => {
    expect(isDns1123Subdomain(v)).toBeUndefined();
  });
  it.each([['A.com'], ['a..b'], ['-a'], ['a_b']])('rejects %j', (v) => {
    expect(isDns1123Subdomain(v)).toContain('a lowercase RFC 1123 subdomain');
  });
});
