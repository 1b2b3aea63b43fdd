import { Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { shortCaller } from '../../../src/log/caller.js';
import { preciseNowMs } from '../../../src/log/clock.js';
import { createLogging } from '../../../src/log/index.js';

describe('shortCaller', () => {
  test.each([
    ['    at syncPod (file:///work/agent/src/pods/sync-pod.ts:228:7)', 'pods/sync-pod.ts:228'],
    ['    at async Promise.all (index 0) (/opt/agent/dist/bundle/agent.cjs:3:1200)', 'bundle/agent.cjs:3'],
    ['    at /work/agent/src/pleg/generic.ts:61:5', 'pleg/generic.ts:61'],
    ['    at main.ts:4:1', 'main.ts:4'],
    ['    at new Promise (<anonymous>)', undefined],
    ['Error', undefined],
    [undefined, undefined],
  ])('%s → %s', (frame, want) => expect(shortCaller(frame)).toBe(want));
});

function jsonLogging(now?: () => Date) {
  const lines: string[] = [];
  const out = new Writable({
    write(chunk: unknown, _e, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const logging = createLogging({ format: 'json', verbosity: 4, vmodule: [], flushFrequencyMs: 0, json: { splitStream: false, infoBufferSize: 0 }, stdout: out, stderr: out, ...(now ? { now } : {}) });
  return { log: logging.root, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('JSON caller and ts', () => {
  test('every way of logging names the line that logged, right after ts', () => {
    const { log, records } = jsonLogging();
    const child = log.child({ component: 'sync', pod: 'ns/web' });
    const here = Number(/caller\.test\.ts:(\d+)/.exec(new Error().stack ?? '')?.[1]);
    log.info('i');
    child.warn('w');
    child.error('e', { err: new Error('boom') });
    log.v(3)?.info('v');
    const recs = records();
    expect(recs.map((r) => r['caller'])).toEqual([1, 2, 3, 4].map((d) => `log/caller.test.ts:${here + d}`));
    for (const r of recs) expect(Object.keys(r).slice(0, 2)).toEqual(['ts', 'caller']);
  });

  test('records through the pino escape hatch carry no caller', () => {
    const { log, records } = jsonLogging();
    log.pino.info('direct');
    expect(records()[0]).not.toHaveProperty('caller');
  });

  test('ts: float milliseconds since the epoch, close to the wall clock', () => {
    const { log, records } = jsonLogging();
    const before = Date.now();
    log.info('m');
    const ts = records()[0]!['ts'] as number;
    expect(ts).toBeGreaterThanOrEqual(before - 1);
    expect(ts).toBeLessThanOrEqual(Date.now() + 1);
  });

  test('preciseNowMs stays within a millisecond of Date.now()', () => {
    for (let i = 0; i < 1000; i++) {
      const a = Date.now();
      const t = preciseNowMs();
      const b = Date.now();
      expect(t).toBeGreaterThanOrEqual(a - 1);
      expect(t).toBeLessThanOrEqual(b + 1);
    }
  });
});
