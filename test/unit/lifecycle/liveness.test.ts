import { describe, expect, it } from 'vitest';
import { AgentError } from '../../../src/errors.js';
import { LivenessRegistry } from '../../../src/lifecycle/liveness.js';

describe('LivenessRegistry', () => {
  it('is ok with no checks', () => {
    expect(new LivenessRegistry().check()).toEqual({ ok: true, failures: [], results: [] });
  });

  it('reports failing checks with their reasons, in registration order', () => {
    const reg = new LivenessRegistry();
    let syncLoopOk = true;
    reg.register('syncloop', () => (syncLoopOk ? true : 'last iteration 3m ago'));
    reg.register('pleg', () => 'relist stuck');
    reg.register('log', () => true);
    expect(reg.check()).toEqual({
      ok: false,
      failures: ['pleg: relist stuck'],
      results: [
        { name: 'syncloop', ok: true },
        { name: 'pleg', ok: false, reason: 'relist stuck' },
        { name: 'log', ok: true },
      ],
    });
    syncLoopOk = false;
    expect(reg.check().failures).toEqual(['syncloop: last iteration 3m ago', 'pleg: relist stuck']);
  });

  it('counts a throwing check as failing with its message', () => {
    const reg = new LivenessRegistry();
    reg.register('bad', () => {
      throw new Error('kaput');
    });
    expect(reg.check()).toMatchObject({ ok: false, failures: ['bad: kaput'] });
    expect(reg.checkOne('bad')).toEqual({ name: 'bad', ok: false, reason: 'kaput' });
    expect(reg.checkOne('missing')).toBeUndefined();
  });

  it('rejects duplicate and unusable names', () => {
    const reg = new LivenessRegistry();
    reg.register('a', () => true);
    expect(() => reg.register('a', () => true)).toThrow(AgentError);
    expect(() => reg.register('', () => true)).toThrow(/not a valid name/);
    expect(() => reg.register('a/b', () => true)).toThrow(/not a valid name/);
    expect(() => reg.register('has space', () => true)).toThrow(/not a valid name/);
  });

  it('unregister removes only its own check', () => {
    const reg = new LivenessRegistry();
    const off = reg.register('a', () => 'down');
    off();
    const again = reg.register('a', () => true);
    off();
    expect(reg.names()).toEqual(['a']);
    expect(reg.check().ok).toBe(true);
    again();
    expect(reg.names()).toEqual([]);
  });
});
