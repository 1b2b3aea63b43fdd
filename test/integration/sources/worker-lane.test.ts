// The sources' worker lane (src/sources/worker-lane.ts) with a small worker of
// its own: jobs in order, a failure of one job (deadline, heap cap, a crash, an
// exit) is that job's alone and the next gets a new thread; the idle rule.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createWorkerLane, type WorkerLane } from '../../../src/sources/worker-lane.js';

type Job = { op: 'echo' | 'hang' | 'crash' | 'exit' | 'hog'; value?: number };
type Out = { value?: number; thread: number; served: number };

// CommonJS, so no loader is involved: `served` counts the jobs this thread answered.
const dir = mkdtempSync(join(tmpdir(), 'lane-'));
const script = pathToFileURL(join(dir, 'worker.cjs'));
writeFileSync(
  join(dir, 'worker.cjs'),
  `const { parentPort, threadId } = require('node:worker_threads');
let served = 0;
parentPort.on('message', ({ id, job }) => {
  if (job.op === 'hang') for (;;);
  if (job.op === 'crash') throw new Error('boom');
  if (job.op === 'exit') process.exit(3);
  if (job.op === 'hog') { const keep = []; for (;;) keep.push(new Array(1e5).fill(1)); }
  served++;
  parentPort.postMessage({ id, out: { value: job.value, thread: threadId, served } });
});`,
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lanes: WorkerLane<Job, Out>[] = [];
afterEach(async () => {
  for (const l of lanes.splice(0)) await l.close();
});
const lane = (idleMs = Infinity, heapMb = 64) => {
  const l = createWorkerLane<Job, Out>({ script, heapMb, idleMs });
  lanes.push(l);
  return l;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('worker lane', () => {
  it('answers jobs in order, on one thread', async () => {
    const l = lane();
    const outs = await Promise.all([1, 2, 3].map((value) => l.run({ op: 'echo', value }, { deadlineMs: 5000 })));
    expect(outs.map((o) => ('out' in o ? o.out.value : o.failed))).toEqual([1, 2, 3]);
    expect(new Set(outs.map((o) => ('out' in o ? o.out.thread : 0))).size).toBe(1);
  });

  it('keeps an idle worker with idleMs Infinity, and ends it after idleMs otherwise', async () => {
    const kept = lane();
    await kept.run({ op: 'echo' }, { deadlineMs: 5000 });
    await sleep(100);
    expect(await kept.run({ op: 'echo' }, { deadlineMs: 5000 })).toEqual({ out: expect.objectContaining({ served: 2 }) as Out });
    const ended = lane(10);
    await ended.run({ op: 'echo' }, { deadlineMs: 5000 });
    await sleep(100);
    expect(await ended.run({ op: 'echo' }, { deadlineMs: 5000 })).toEqual({ out: expect.objectContaining({ served: 1 }) as Out });
  });

  it.each([
    ['hang', { reason: 'deadline' }],
    ['crash', { reason: 'crashed', detail: 'boom' }],
    ['exit', { reason: 'crashed', detail: 'the thread exited' }],
    ['hog', { reason: 'memory' }],
  ] as const)('a job that does "%s" fails alone; the next job gets a new thread', async (op, failed) => {
    const l = lane(Infinity, 16);
    const first = await l.run({ op: 'echo' }, { deadlineMs: 5000 });
    expect(await l.run({ op }, { deadlineMs: op === 'hang' ? 200 : 20_000 })).toEqual({ failed });
    const next = await l.run({ op: 'echo', value: 7 }, { deadlineMs: 5000 });
    expect(next).toEqual({ out: expect.objectContaining({ value: 7, served: 1 }) as Out });
    expect('out' in next && 'out' in first && next.out.thread !== first.out.thread).toBe(true);
  });

  it('close() fails queued jobs, later ones too, and is idempotent', async () => {
    const l = lane();
    const pending = [l.run({ op: 'hang' }, { deadlineMs: 60_000 }), l.run({ op: 'echo' }, { deadlineMs: 60_000 })];
    await sleep(50);
    await l.close();
    await l.close();
    expect(await Promise.all(pending)).toEqual([{ failed: { reason: 'closed' } }, { failed: { reason: 'closed' } }]);
    expect(await l.run({ op: 'echo' }, { deadlineMs: 5000 })).toEqual({ failed: { reason: 'closed' } });
  });
});
