import { describe, expect, it } from 'vitest';
import { restartDelayMs, runWatchLoop, type WatchSource } from '../../../../src/apiserver/controllers/watch-loop.js';
import { WorkQueue } from '../../../../src/apiserver/controllers/work-queue.js';
import type { WatchEvent, WatchRequest } from '../../../../src/apiserver/registry/types.js';

const quiet = { warn: () => undefined };
const obj = (name: string, rv: number): WatchEvent => ({ type: 'ADDED', object: { metadata: { name, resourceVersion: String(rv) } } });
const gone: WatchEvent = { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version', reason: 'Expired', code: 410 } };

describe('runWatchLoop', () => {
  it('starts from the current state, resumes from the last version, and starts over after 410', async () => {
    const stop = new AbortController();
    const starts: string[] = [];
    const script: WatchEvent[][] = [[obj('a', 5), obj('b', 6)], [gone], [obj('a', 9)]];
    const source: WatchSource = {
      watch(_ns: string, req: WatchRequest) {
        starts.push(req.start.kind === 'StartExact' ? `Exact ${req.start.rv}` : req.start.kind);
        const events = script.shift();
        if (events === undefined) stop.abort();
        return Promise.resolve((async function* () {
          yield* events ?? [];
        })());
      },
    };
    const seen: string[] = [];
    await runWatchLoop(source, (type, o) => seen.push(`${type} ${o.metadata.name ?? ''}`), quiet, stop.signal);
    expect(starts).toEqual(['StartMostRecent', 'Exact 6', 'StartMostRecent', 'Exact 9']);
    expect(seen).toEqual(['ADDED a', 'ADDED b', 'ADDED a']);
  });
  it.each([[1, 100], [2, 200], [5, 1600], [20, 10_000]])('restart %i waits %i ms', (n, ms) => expect(restartDelayMs(n)).toBe(ms));
});

describe('WorkQueue', () => {
  it('queues a key once however often it is added, retries a failure, and stops at the abort', async () => {
    const stop = new AbortController();
    const calls: string[] = [];
    let done: () => void = () => undefined;
    const finished = new Promise<void>((r) => (done = r));
    const q = new WorkQueue(async (key) => {
      calls.push(key);
      if (key === 'flaky' && calls.filter((k) => k === 'flaky').length === 1) throw new Error('first try fails');
      if (key === 'flaky') done();
    }, quiet);
    q.add('a');
    q.add('a');
    q.add('flaky');
    const running = q.run(stop.signal);
    await finished;
    stop.abort();
    await running;
    q.add('after');
    expect(calls).toEqual(['a', 'flaky', 'flaky']);
    expect(q.size).toBe(0);
  });
});
