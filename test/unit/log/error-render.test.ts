import { describe, expect, test } from 'vitest';
import { ConfigFileError, ValueError } from '../../../src/errors.js';
import { errorDetails, errorText } from '../../../src/log/error-render.js';

function chain(depth: number): Error {
  let err = new Error('e0');
  for (let i = 1; i <= depth; i++) err = new Error(`e${i}`, { cause: err });
  return err;
}

describe('errorText', () => {
  const a = new Error('a');
  const b = new Error('b', { cause: a });
  (a as { cause?: unknown }).cause = b;

  test.each<[string, unknown, string]>([
    ['plain error', new Error('boom'), 'boom'],
    ['cause appended', new Error('outer', { cause: new Error('inner') }), 'outer: inner'],
    ['cause already in message', new Error('outer: inner', { cause: new Error('inner') }), 'outer: inner'],
    ['non-Error cause', new Error('outer', { cause: 'why' }), 'outer: why'],
    ['cycle terminates', b, 'b: a'],
    ['depth is limited', chain(8), 'e8: e7: e6: e5: e4: e3'],
    ['thrown string', 'boom', 'boom'],
    ['thrown number', 42, '42'],
    ['thrown object', { code: 1 }, '{"code":1}'],
    ['null', null, 'null'],
  ])('%s', (_name, value, expected) => {
    expect(errorText(value)).toBe(expected);
  });
});

describe('errorDetails', () => {
  test('AgentError fields, stack and cause chain', () => {
    const inner = new Error('inner');
    const err = new ConfigFileError('bad field', {
      flag: '--config',
      field: 'authentication.x509.clientCAFile',
      file: '/etc/agent/config.yaml',
      line: 12,
      cause: inner,
    });
    const d = errorDetails(err);
    expect(d).toMatchObject({
      type: 'ConfigFileError',
      message: 'bad field',
      code: 'ECONFIG',
      flag: '--config',
      field: 'authentication.x509.clientCAFile',
      file: '/etc/agent/config.yaml',
      line: 12,
      cause: { type: 'Error', message: 'inner' },
    });
    expect(d.stack).toMatch(/^ConfigFileError: bad field\n/);
    expect(d.cause?.stack).toMatch(/^Error: inner\n/);
  });

  test('absent AgentError fields are left out', () => {
    expect(Object.keys(errorDetails(new ValueError('v')))).toEqual(['type', 'message', 'code', 'stack']);
  });

  test('system error code is kept', () => {
    const err = Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' });
    expect(errorDetails(err).code).toBe('ENOENT');
  });

  test('non-Error values', () => {
    expect(errorDetails('boom')).toEqual({ type: 'string', message: 'boom' });
    expect(errorDetails(new Error('x', { cause: 7 })).cause).toEqual({ type: 'number', message: '7' });
  });

  test('cause depth is limited and cycles terminate', () => {
    let d = errorDetails(chain(8));
    let depth = 0;
    while (d.cause !== undefined) {
      d = d.cause;
      depth++;
    }
    expect(depth).toBe(5);
    const a = new Error('a');
    a.cause = new Error('b', { cause: a });
    expect(errorDetails(a).cause?.cause).toBeUndefined();
  });
});
