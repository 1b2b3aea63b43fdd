import { describe, expect, it } from 'vitest';
import { checkPatchOptions, defaultManager, managerFor, validateFieldManager } from '../../../../src/apiserver/apply/options.js';

describe('defaultManager', () => {
  it.each([
    ['kubelet/v1.28.15 (linux/amd64) kubernetes/abc', 'kubelet'],
    ['agent/0.1.0', 'agent'],
    ['kubectl', 'kubectl'],
    ['', 'unknown'],
    [undefined, 'unknown'],
    ['/v1', 'unknown'],
    ['a\u0001b/1', 'ab'],
    ['x'.repeat(200), 'x'.repeat(128)],
    ['é'.repeat(100), 'é'.repeat(64)],
  ])('%j → %j', (ua, manager) => {
    expect(defaultManager(ua)).toBe(manager);
  });
  it('prefers the fieldManager option', () => {
    expect(managerFor('mine', 'kubelet/1')).toBe('mine');
    expect(managerFor('', 'kubelet/1')).toBe('kubelet');
  });
});

describe('checkPatchOptions', () => {
  it.each([
    { o: { apply: true, fieldManager: 'a', force: true }, message: undefined },
    { o: { apply: false, fieldManager: undefined, force: undefined }, message: undefined },
    { o: { apply: true, fieldManager: undefined, force: undefined }, message: 'PatchOptions.meta.platform.io "" is invalid: fieldManager: Required value: is required for apply patch' },
    { o: { apply: false, fieldManager: 'a', force: false }, message: 'PatchOptions.meta.platform.io "" is invalid: force: Forbidden: may not be specified for non-apply patch' },
    { o: { apply: true, fieldManager: 'a\tb', force: undefined }, message: 'PatchOptions.meta.platform.io "" is invalid: fieldManager: Invalid value: "a\\tb": invalid characters at index 1' },
  ])('$o → $message', ({ o, message }) => {
    const err = checkPatchOptions(o);
    expect(err?.message).toBe(message);
    if (err !== undefined) expect([err.code, err.reason]).toEqual([422, 'Invalid']);
  });
  it('limits a manager to 128 bytes', () => {
    expect(validateFieldManager('x'.repeat(129)).map((e) => e.type)).toEqual(['FieldValueTooLong']);
    expect(validateFieldManager('x'.repeat(128))).toEqual([]);
  });
});
