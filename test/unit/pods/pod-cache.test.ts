// The pod cache (GetNewerThan): a sync gets a relist begun after its pod's
// previous work, waiting for one (and asking for one when a source changed
// the pod), or nothing, so that it reads the runtime itself. Its clock and
// the relists are driven by hand.
import { describe, expect, it } from 'vitest';
import { PodCache } from '../../../src/pods/pod-cache.js';
import { emptyObserved, type ObservedPod } from '../../../src/runtime-view/observed.js';

const snap = (...uids: string[]): Map<string, ObservedPod> => new Map(uids.map((u) => [u, { ...emptyObserved(u, u, 'default'), name: `seen-${u}` }]));

function cache(waitMs = 60_000) {
  let relists = 0;
  let clock = 0;
  const c = new PodCache({ requestRelist: () => void relists++, waitMs, now: () => clock });
  return { c, relists: () => relists, tick: (ms: number) => void (clock += ms) };
}

describe('pod cache', () => {
  it('before the first relist: nothing (the caller reads the runtime)', async () => {
    const { c } = cache();
    expect(await c.getNewerThan('a', -Infinity, new AbortController().signal)).toBeUndefined();
  });

  it.each([
    ['a relist begun after the previous work: served at once', 10, 5, 'seen-a'],
    ['the first work of a pod (no previous work): served at once', 10, -Infinity, 'seen-a'],
  ])('%s', async (_, startedAt, since, name) => {
    const { c } = cache();
    c.update(snap('a'), startedAt);
    expect((await c.getNewerThan('a', since, new AbortController().signal))?.name).toBe(name);
  });

  it('a pod the relist did not find is empty, not unknown', async () => {
    const { c } = cache();
    c.update(snap('a'), 10);
    expect(await c.getNewerThan('b', 5, new AbortController().signal)).toEqual(emptyObserved('b'));
  });

  it('waits for a relist begun after the previous work, and reports the pod as waiting meanwhile', async () => {
    const { c, relists } = cache();
    c.update(snap('a'), 10);
    const got = c.getNewerThan('a', 20, new AbortController().signal);
    expect(c.update(snap('a'), 15)).toEqual(new Set(['a'])); // begun too early: keeps waiting
    expect(c.update(snap('a'), 25)).toEqual(new Set(['a']));
    expect((await got)?.name).toBe('seen-a');
    expect(c.update(snap('a'), 30)).toEqual(new Set());
    expect(relists()).toBe(0);
  });

  it('a source change asks for a relist at once: for a sync waiting now, or at its next wait', async () => {
    const { c, relists } = cache();
    c.update(snap('a', 'b'), 10);
    const waiting = c.getNewerThan('a', 20, new AbortController().signal);
    c.sourceChanged('a');
    expect(relists()).toBe(1);
    c.sourceChanged('b'); // nothing waits for b yet
    expect(relists()).toBe(1);
    const next = c.getNewerThan('b', 20, new AbortController().signal);
    expect(relists()).toBe(2);
    c.update(snap('a', 'b'), 30);
    expect([(await waiting)?.name, (await next)?.name]).toEqual(['seen-a', 'seen-b']);
    c.sourceChanged('a');
    c.forget('a'); // its worker went: its next wait asks for nothing
    c.update(snap('a'), 40);
    await c.getNewerThan('a', 50, AbortSignal.abort());
    expect(relists()).toBe(2);
  });

  it('an aborted wait ends at once with nothing', async () => {
    const { c } = cache();
    c.update(snap('a'), 10);
    const ac = new AbortController();
    const got = c.getNewerThan('a', 20, ac.signal);
    ac.abort();
    expect(await got).toBeUndefined();
    expect(c.update(snap('a'), 30)).toEqual(new Set());
  });

  it('no relist within the wait: nothing (a stuck PLEG costs a runtime read, not a hang)', async () => {
    // The real clock: the wait's own timer ends it (5 ms), no relist comes.
    const c = new PodCache({ waitMs: 5 });
    c.update(snap('a'), performance.now());
    expect(await c.getNewerThan('a', performance.now() + 1, new AbortController().signal)).toBeUndefined();
  });
});
