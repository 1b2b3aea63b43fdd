// The API pod source over a fake lister-watcher: the first set goes out once
// the list is in, changes coalesce into one set, mirror pods are left out,
// a pod that fails validation is logged once per version and skipped while
// the others keep running, and a status-only change hands on an equal pod.
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../src/client/index.js';
import type { ApiObject, ListOptions, ListPage, WatchEvent, WatchOptions, WatchStream } from '../../../src/client/types.js';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { createApiPodSource } from '../../../src/sources/api.js';
import { testLogger } from '../../helpers/test-logger.js';

class FakeLw {
  readonly type = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
  readonly namespace = '';
  selectors: string[] = [];
  private push: ((e: WatchEvent | undefined) => void) | undefined;
  private queue: Array<WatchEvent | undefined> = [];
  constructor(private items: ApiObject[]) {}
  async list(opts: ListOptions): Promise<ListPage> {
    this.selectors.push(opts.fieldSelector ?? '');
    return { items: structuredClone(this.items), resourceVersion: '10', continue: '', remainingItemCount: undefined };
  }
  async watch(opts: WatchOptions): Promise<WatchStream> {
    const self = this;
    opts.signal?.addEventListener('abort', () => self.send(undefined));
    return {
      close: () => self.send(undefined),
      async *[Symbol.asyncIterator]() {
        for (;;) {
          const next = self.queue.shift() ?? (await new Promise<WatchEvent | undefined>((r) => (self.push = r)));
          if (next === undefined) return;
          yield next;
        }
      },
    };
  }
  send(e: WatchEvent | undefined): void {
    const p = this.push;
    this.push = undefined;
    if (p) p(e);
    else this.queue.push(e);
  }
}

let rv = 10;
const obj = (name: string, over: { annotations?: Record<string, string>; containers?: unknown[]; phase?: string } = {}): ApiObject => ({
  metadata: { name, namespace: 'ns', uid: `u-${name}`, resourceVersion: String(++rv), ...(over.annotations ? { annotations: over.annotations } : {}) },
  spec: { nodeName: 'n1', containers: over.containers ?? [{ name: 'c', image: 'img' }] },
  status: { phase: over.phase ?? 'Pending' },
});

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

function start(lw: FakeLw) {
  const sets: Pod[][] = [];
  const waiters = new Set<() => void>();
  const log = testLogger();
  const client = { rest: { resource: () => lw } } as unknown as Pick<ApiClient, 'rest'>;
  const source = createApiPodSource({ client, nodeName: 'n1', log, debounceMs: 5, onPods: (pods) => {
    sets.push(pods);
    for (const w of [...waiters]) w();
  } });
  const ac = new AbortController();
  const run = source.run(ac.signal);
  stops.push(async () => {
    ac.abort();
    await run;
  });
  const nth = (n: number): Promise<Pod[]> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const s = sets[n - 1];
        if (s === undefined) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(s);
      };
      const timer = setTimeout(() => reject(new Error(`no set #${n}; got ${sets.length}`)), 5000);
      waiters.add(check);
      check();
    });
  return { sets, nth, log };
}

const names = (pods: Pod[]): string[] => pods.map((p) => p.metadata.name).sort();

describe('createApiPodSource', () => {
  it("lists the node's pods by spec.nodeName and hands on the set, without mirror pods", async () => {
    const lw = new FakeLw([obj('a'), obj('m', { annotations: { 'platform.io/config.mirror': 'h' } })]);
    const s = start(lw);
    expect(names(await s.nth(1))).toEqual(['a']);
    expect(lw.selectors[0]).toBe('spec.nodeName=n1');
  });

  it('coalesces changes into one set', async () => {
    const lw = new FakeLw([]);
    const s = start(lw);
    expect(await s.nth(1)).toEqual([]);
    lw.send({ type: 'ADDED', object: obj('a') });
    lw.send({ type: 'ADDED', object: obj('b') });
    lw.send({ type: 'ADDED', object: obj('c') });
    expect(names(await s.nth(2))).toEqual(['a', 'b', 'c']);
    lw.send({ type: 'DELETED', object: obj('b') });
    expect(names(await s.nth(3))).toEqual(['a', 'c']);
    expect(s.sets).toHaveLength(3);
  });

  it('skips an invalid pod, logging it once per version, and keeps the others', async () => {
    const lw = new FakeLw([obj('good'), obj('bad', { containers: [] })]);
    const s = start(lw);
    expect(names(await s.nth(1))).toEqual(['good']);
    lw.send({ type: 'ADDED', object: obj('other') });
    expect(names(await s.nth(2))).toEqual(['good', 'other']);
    const errors = s.log.records.filter((r) => r.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.fields).toMatchObject({ pod: 'ns/bad', podUID: 'u-bad' });
    expect(String(errors[0]?.fields['error'])).toContain('spec.containers');
  });

  it('a status-only change hands on a pod equal to the one before', async () => {
    const lw = new FakeLw([obj('a')]);
    const s = start(lw);
    const first = await s.nth(1);
    lw.send({ type: 'MODIFIED', object: obj('a', { phase: 'Running' }) });
    expect(await s.nth(2)).toEqual(first);
  });

  it('keeps the previous version of a running pod when an update fails validation, and still sees its deletion', async () => {
    const lw = new FakeLw([obj('a')]);
    const s = start(lw);
    const first = await s.nth(1);
    lw.send({ type: 'MODIFIED', object: obj('a', { containers: [{ name: 'c' }, { name: 'c', image: 'x' }] }) });
    lw.send({ type: 'ADDED', object: obj('b') });
    expect(names(await s.nth(2))).toEqual(['a', 'b']);
    expect(s.sets[1]?.find((p) => p.metadata.name === 'a')).toEqual(first[0]);
    expect(s.log.records.filter((r) => r.level === 'error').map((r) => r.msg)).toEqual(['Pod from the API server is invalid; keeping its previous version']);
    const deleting = obj('a', { containers: [{ name: 'c' }, { name: 'c', image: 'x' }] });
    (deleting['metadata'] as Record<string, unknown>)['deletionTimestamp'] = '2026-11-24T10:00:00Z';
    (deleting['metadata'] as Record<string, unknown>)['deletionGracePeriodSeconds'] = 4;
    lw.send({ type: 'MODIFIED', object: deleting });
    const third = await s.nth(3);
    expect(third.find((p) => p.metadata.name === 'a')?.metadata).toMatchObject({ deletionTimestamp: '2026-11-24T10:00:00Z', deletionGracePeriodSeconds: 4 });
  });
});
