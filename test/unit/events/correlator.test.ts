import { describe, expect, it } from 'vitest';
import { COMBINED_PREFIX, EventCorrelator, aggregateKey, eventKey, eventName, makeEvent, spamKey, containerRef, nodeRef, podRef, type CoreEvent, type EventObjectRef } from '../../../src/events/index.js';

const SOURCE = { component: 'agent', host: 'node-a' };
const POD = { namespace: 'ns', name: 'web', uid: 'u1' };
const T0 = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

function ev(over: { ref?: EventObjectRef; reason?: string; message?: string; type?: 'Normal' | 'Warning'; at?: number; seq?: number } = {}): CoreEvent {
  return makeEvent({ ref: over.ref ?? containerRef(POD, 'c'), type: over.type ?? 'Normal', reason: over.reason ?? 'Pulling', message: over.message ?? 'Pulling image "x"', source: SOURCE, nowMs: over.at ?? T0, seq: over.seq ?? 1 });
}

function clock(start = T0): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe('makeEvent', () => {
  it('builds the event client-go makes', () => {
    const e = ev();
    expect(e.metadata).toEqual({ name: eventName('web', T0, 1), namespace: 'ns' });
    expect(e.metadata.name).toMatch(/^web\.[0-9a-f]+$/);
    expect(e.involvedObject).toEqual({ kind: 'Pod', namespace: 'ns', name: 'web', uid: 'u1', apiVersion: 'v1', fieldPath: 'spec.containers{c}' });
    expect(e).toMatchObject({ count: 1, source: SOURCE, reportingComponent: 'agent', reportingInstance: 'node-a', firstTimestamp: '2026-01-02T03:04:05Z', lastTimestamp: '2026-01-02T03:04:05Z' });
  });
  it('puts node events in default and names apart events of the same millisecond', () => {
    const e = ev({ ref: nodeRef('node-a') });
    expect(e.metadata.namespace).toBe('default');
    expect(e.involvedObject.namespace).toBeUndefined();
    expect(eventName('x', T0, 1)).not.toBe(eventName('x', T0, 2));
    expect(BigInt(`0x${eventName('x', T0, 0).slice(2)}`)).toBe(BigInt(T0) * 1_000_000n);
  });
  it.each([
    ['init container', containerRef(POD, 'i', 'init').fieldPath, 'spec.initContainers{i}'],
    ['ephemeral container', containerRef(POD, 'e', 'ephemeral').fieldPath, 'spec.ephemeralContainers{e}'],
    ['pod', podRef(POD).fieldPath, undefined],
  ])('refers to a %s', (_n, got, want) => expect(got).toBe(want));
});

describe('keys', () => {
  const base = ev();
  it.each<[string, CoreEvent, { event: boolean; aggregate: boolean; spam: boolean }]>([
    ['same event later', ev({ at: T0 + 5000, seq: 9 }), { event: true, aggregate: true, spam: true }],
    ['other message', ev({ message: 'other' }), { event: false, aggregate: true, spam: true }],
    ['other reason', ev({ reason: 'Pulled' }), { event: false, aggregate: false, spam: true }],
    ['other container', ev({ ref: containerRef(POD, 'd') }), { event: false, aggregate: true, spam: true }],
    ['other type', ev({ type: 'Warning' }), { event: false, aggregate: false, spam: false }],
    ['other pod', ev({ ref: containerRef({ ...POD, uid: 'u2' }, 'c') }), { event: false, aggregate: false, spam: false }],
  ])('%s', (_n, other, same) => {
    expect(eventKey(other) === eventKey(base)).toBe(same.event);
    expect(aggregateKey(other) === aggregateKey(base)).toBe(same.aggregate);
    expect(spamKey(other) === spamKey(base)).toBe(same.spam);
  });
});

describe('EventCorrelator', () => {
  it('creates the first event and patches its repeats with count 2, 3 at the written name', () => {
    const c = clock();
    const cor = new EventCorrelator(c.now);
    const first = cor.correlate(ev());
    if (first.skip) throw new Error('skipped');
    expect(first.patch).toBeUndefined();
    cor.recorded(first.key, { metadata: { name: first.event.metadata.name, resourceVersion: '7' }, count: 1, firstTimestamp: first.event.firstTimestamp });
    c.advance(3000);
    const rows: Array<[number, string | undefined]> = [];
    for (let i = 0; i < 2; i++) {
      const r = cor.correlate(ev({ at: c.now(), seq: 5 + i }));
      if (r.skip) throw new Error('skipped');
      rows.push([r.patch?.count ?? 0, r.event.metadata.name]);
      expect(r.event.firstTimestamp).toBe(first.event.firstTimestamp);
      expect(r.patch?.lastTimestamp).toBe('2026-01-02T03:04:08Z');
    }
    expect(rows).toEqual([[2, first.event.metadata.name], [3, first.event.metadata.name]]);
  });

  it.each([
    [9, 0],
    [10, 1],
    [12, 3],
  ])('with %i distinct messages alike otherwise, %i come combined', (n, combined) => {
    const cor = new EventCorrelator(clock().now);
    const out = Array.from({ length: n }, (_, i) => cor.correlate(ev({ message: `m${i}` })));
    const msgs = out.map((r) => (r.skip ? 'skip' : r.event.message));
    expect(msgs.filter((m) => m.startsWith(COMBINED_PREFIX))).toHaveLength(combined);
    if (combined > 0) expect(msgs[9]).toBe(`${COMBINED_PREFIX}m9`);
    // The combined ones are one event counted up.
    const counts = out.slice(9).map((r) => (r.skip ? 0 : r.event.count));
    expect(counts).toEqual(Array.from({ length: combined }, (_, i) => i + 1));
  });

  it('starts aggregating afresh after the window', () => {
    const c = clock();
    const cor = new EventCorrelator(c.now);
    for (let i = 0; i < 9; i++) cor.correlate(ev({ message: `m${i}` }));
    c.advance(600_001);
    const r = cor.correlate(ev({ message: 'm9' }));
    expect(!r.skip && r.event.message).toBe('m9');
  });

  it('lets 25 events of one object through, then one per 5 minutes', () => {
    const c = clock();
    const cor = new EventCorrelator(c.now);
    const passed = (k: number): number => Array.from({ length: k }, (_, i) => cor.correlate(ev({ reason: `R${i % 3}`, message: 'same' }))).filter((r) => !r.skip).length;
    expect(passed(30)).toBe(25);
    c.advance(299_000);
    expect(passed(1)).toBe(0);
    c.advance(1_000);
    expect(passed(2)).toBe(1);
    // Another object has its own bucket.
    expect(cor.correlate(ev({ ref: podRef({ ...POD, uid: 'u2' }) })).skip).toBe(false);
  });

  it('keeps its caches bounded', () => {
    const cor = new EventCorrelator(clock().now, { cacheSize: 3 });
    for (let i = 0; i < 5; i++) cor.correlate(ev({ ref: podRef({ ...POD, uid: `u${i}` }) }));
    // u0 was evicted: the same event again is new (no patch).
    const r = cor.correlate(ev({ ref: podRef({ ...POD, uid: 'u0' }) }));
    expect(!r.skip && r.patch).toBeUndefined();
  });
});
