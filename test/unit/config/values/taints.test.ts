import { describe, expect, it } from 'vitest';
import { parseTaints, validateTaint, validateTaintList } from '../../../../src/config/values/taints.js';
import { ValueError } from '../../../../src/errors.js';

describe('parseTaints', () => {
  it.each([
    ['', []],
    ['dedicated=gpu:NoSchedule', [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }]],
    ['dedicated:NoExecute', [{ key: 'dedicated', effect: 'NoExecute' }]],
    ['dedicated=:PreferNoSchedule', [{ key: 'dedicated', effect: 'PreferNoSchedule' }]],
    ['example.com/k=v:NoSchedule', [{ key: 'example.com/k', value: 'v', effect: 'NoSchedule' }]],
    [
      'a=1:NoSchedule, a=1:NoExecute',
      [
        { key: 'a', value: '1', effect: 'NoSchedule' },
        { key: 'a', value: '1', effect: 'NoExecute' },
      ],
    ],
    ['a:NoSchedule,b:NoSchedule-', [{ key: 'a', effect: 'NoSchedule' }]],
    ['gone-', []],
    ['a:NoSchedule,a:NoSchedule-', [{ key: 'a', effect: 'NoSchedule' }]],
  ])('parses %j', (text, taints) => {
    expect(parseTaints(text)).toEqual(taints);
  });

  it.each([
    ['a', 'invalid taint "a": missing effect (use NoSchedule, PreferNoSchedule, NoExecute)'],
    ['a=b', 'invalid taint "a=b": missing effect'],
    ['a=b:Sometimes', 'invalid taint "a=b:Sometimes": unsupported effect "Sometimes" (use NoSchedule, PreferNoSchedule, NoExecute)'],
    ['a=b:', 'invalid taint "a=b:": unsupported effect ""'],
    ['a=b=c:NoSchedule', `invalid taint "a=b=c:NoSchedule": only one '=' is allowed, between key and value`],
    ['a:b:NoSchedule', 'invalid taint "a:b:NoSchedule": expected key=value:Effect or key:Effect'],
    ['-a:NoSchedule', 'invalid taint "-a:NoSchedule": key "-a": name part must consist of alphanumeric'],
    ['=v:NoSchedule', 'invalid taint "=v:NoSchedule": key "": name part must be non-empty'],
    [`a=${'v'.repeat(64)}:NoSchedule`, 'value "vvvv'],
    ['a=b c:NoSchedule', 'invalid taint "a=b c:NoSchedule": value "b c": a valid label value must be an empty string'],
    ['a=1:NoSchedule,a=2:NoSchedule', 'invalid taint "a=2:NoSchedule": duplicate key and effect'],
    ['a:NoSchedule,,b:NoSchedule', 'invalid taint "": key "": name part must be non-empty'],
    ['bad key:NoSchedule-', 'invalid taint "bad key:NoSchedule": key "bad key"'],
    ['a:Bad-', 'invalid taint "a:Bad": unsupported effect "Bad"'],
  ])('rejects %j', (text, message) => {
    expect(() => parseTaints(text)).toThrow(ValueError);
    expect(() => parseTaints(text)).toThrow(message);
  });
});

describe('validateTaint', () => {
  it.each([
    [{ key: 'a', effect: 'NoSchedule' }],
    [{ key: 'example.com/a', value: '', effect: 'NoExecute' }],
    [{ key: 'a', value: 'v', effect: 'PreferNoSchedule' }],
  ])('accepts %j', (t) => {
    expect(validateTaint(t)).toEqual([]);
  });

  it.each([
    [{ key: 'a b', effect: 'NoSchedule' }, ['taint: invalid key "a b": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\', \'my.name\' or \'123-abc\')']],
    [{ key: 'a', value: '-x', effect: 'NoSchedule' }, ['taint: invalid value "-x": a valid label value must be an empty string or must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\', \'my_value\' or \'12345\')']],
    [{ key: 'a', effect: 'Never' }, ['taint: invalid effect "Never" (use NoSchedule, PreferNoSchedule, NoExecute)']],
    [{ key: 'a' }, ['taint: invalid effect "" (use NoSchedule, PreferNoSchedule, NoExecute)']],
    [{ key: 1, value: 2, effect: 'NoSchedule' }, ['taint: key must be a string', 'taint: value must be a string']],
    // Any JSON may reach here from a file: an effect object whose toString is not a function once threw a TypeError.
    [{ key: 'a', effect: { toString: 0 } }, ['taint: invalid effect "(an object)" (use NoSchedule, PreferNoSchedule, NoExecute)']],
    [{ key: 'a', effect: ['NoSchedule'] }, ['taint: invalid effect "(a list)" (use NoSchedule, PreferNoSchedule, NoExecute)']],
    [{ key: 'a', effect: 7 }, ['taint: invalid effect "7" (use NoSchedule, PreferNoSchedule, NoExecute)']],
  ])('rejects %j', (t, problems) => {
    expect(validateTaint(t)).toEqual(problems);
  });

  it('names the taint it reports about', () => {
    expect(validateTaint({ key: 'a', effect: 'x' }, 'registerWithTaints[2]')).toEqual([
      'registerWithTaints[2]: invalid effect "x" (use NoSchedule, PreferNoSchedule, NoExecute)',
    ]);
  });
});

describe('validateTaintList', () => {
  it('accepts the same key with different effects', () => {
    expect(
      validateTaintList([
        { key: 'a', effect: 'NoSchedule' },
        { key: 'a', effect: 'NoExecute' },
      ]),
    ).toEqual([]);
  });

  it('rejects a duplicate key and effect', () => {
    expect(
      validateTaintList([
        { key: 'a', value: '1', effect: 'NoSchedule' },
        { key: 'a', value: '2', effect: 'NoSchedule' },
      ]),
    ).toEqual(['registerWithTaints[1]: duplicate key "a" and effect NoSchedule']);
  });

  it('reports malformed entries without throwing on their non-string fields', () => {
    const list = [{ key: { toString: 0 }, effect: 'NoSchedule' }, { key: { toString: 0 }, effect: 'NoSchedule' }] as unknown as Parameters<typeof validateTaintList>[0];
    expect(validateTaintList(list)).toEqual(['registerWithTaints[0]: key must be a string', 'registerWithTaints[1]: key must be a string']);
  });
});
