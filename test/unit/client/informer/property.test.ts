// Over random sequences of writes and faults (clean and reset watch drops,
// compactions, expired continue tokens, short watches, bookmarks, stale
// "any" lists), with WatchList on or off on either side: the informer's
// store ends exactly equal to the fake's state, and its handler stream,
// replayed from nothing, gives that state with no version twice, none going
// back, and — where no relist happened — none missed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApiObject } from '../../../../src/client/types.js';
import { keyOf, rvOf } from './fake-lister-watcher.js';
import { startInformer, tick, until } from './harness.js';

type Cmd =
  | { op: 'create'; name: number; node: number }
  | { op: 'update'; pick: number; node: number }
  | { op: 'delete'; pick: number }
  | { op: 'drop'; how: 'clean' | 'reset' }
  | { op: 'compact' }
  | { op: 'expireContinue' }
  | { op: 'shortWatch' }
  | { op: 'bookmark' }
  | { op: 'turns'; n: number };

const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('create' as const), name: fc.nat(11), node: fc.nat(2) }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('update' as const), pick: fc.nat(), node: fc.nat(2) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('drop' as const), how: fc.constantFrom('clean' as const, 'reset' as const) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'compact' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'expireContinue' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'shortWatch' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'bookmark' as const }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('turns' as const), n: fc.integer({ min: 1, max: 6 }) }) },
);

interface Delivered {
  type: 'add' | 'update' | 'delete';
  key: string;
  rv: number;
  oldRv?: number;
}

async function runScenario(cfg: { watchList: boolean; gate: boolean; pageSize: number; anyLag: number; seed: number }, cmds: Cmd[]): Promise<void> {
  const h = startInformer({ run: false, fake: { watchListEnabled: cfg.gate, anyLag: cfg.anyLag }, informer: { watchList: cfg.watchList, pageSize: cfg.pageSize, indexes: { node: (o) => [String((o['spec'] as { nodeName: string }).nodeName)] } } });
  const { fake, informer } = h;
  const changes: number[] = [];
  const write = (f: () => ApiObject | void): void => {
    f();
    changes.push(Number(fake.rv));
  };
  for (let i = 0; i < cfg.seed; i++) write(() => fake.create(`s${i}`));
  const delivered: Delivered[] = [];
  const n = (o: ApiObject): number => Number(rvOf(o));
  informer.addHandlers({
    onAdd: (o) => delivered.push({ type: 'add', key: keyOf(o), rv: n(o) }),
    onUpdate: (a, b) => delivered.push({ type: 'update', key: keyOf(b), rv: n(b), oldRv: n(a) }),
    onDelete: (o) => delivered.push({ type: 'delete', key: keyOf(o), rv: n(o) }),
  });
  const ac = new AbortController();
  const done = informer.run(ac.signal);
  try {
    for (const c of cmds) {
      const keys = [...fake.state.keys()].sort();
      switch (c.op) {
        case 'create':
          if (!fake.state.has(`default/c${c.name}`)) write(() => fake.create(`c${c.name}`, 'default', `n${c.node}`));
          break;
        case 'update':
          if (keys.length > 0) write(() => fake.update(keys[c.pick % keys.length]!, `n${c.node}`));
          break;
        case 'delete':
          if (keys.length > 0) write(() => fake.remove(keys[c.pick % keys.length]!));
          break;
        case 'drop':
          fake.dropWatches(c.how);
          break;
        case 'compact':
          fake.compact();
          break;
        case 'expireContinue':
          fake.expireContinues(1);
          break;
        case 'shortWatch':
          fake.shortWatches(1);
          break;
        case 'bookmark':
          fake.bookmark();
          break;
        case 'turns':
          for (let i = 0; i < c.n; i++) await tick();
          break;
      }
      // Every command lets the informer take a step, so faults meet it in every phase.
      await tick();
    }
    await until(() => informer.hasSynced() && informer.store.resourceVersion === fake.rv && JSON.stringify(h.storeView()) === JSON.stringify(h.fakeView()), 'store equals the fake');
  } finally {
    ac.abort();
    await done;
  }
  expect(h.storeView()).toEqual(h.fakeView());
  expect(fake.openWatches).toBe(0);
  // Indexes agree with the objects.
  for (const node of ['n0', 'n1', 'n2', 'node-a']) {
    const want = [...fake.state.values()].filter((o) => (o['spec'] as { nodeName: string }).nodeName === node).map(keyOf).sort();
    expect(informer.store.byIndex('node', node).map(keyOf).sort()).toEqual(want);
  }
  // Replay: the stream rebuilds the state; no version twice; none goes back for a key.
  const replay = new Map<string, number>();
  const lastByKey = new Map<string, number>();
  const seen = new Set<number>();
  for (const d of delivered) {
    const last = lastByKey.get(d.key) ?? 0;
    if (d.type === 'add') expect(replay.has(d.key)).toBe(false);
    else expect(replay.has(d.key)).toBe(true);
    if (d.type === 'update') expect(d.oldRv).toBe(replay.get(d.key));
    // A relist's delete carries the last state (its version already seen); a watch's carries the delete's own.
    const relistDelete = d.type === 'delete' && d.rv === replay.get(d.key);
    if (relistDelete) expect(d.rv).toBe(last);
    else {
      expect(d.rv).toBeGreaterThan(last);
      expect(seen.has(d.rv)).toBe(false);
      seen.add(d.rv);
    }
    lastByKey.set(d.key, d.rv);
    if (d.type === 'delete') replay.delete(d.key);
    else replay.set(d.key, d.rv);
  }
  expect([...replay.entries()].sort()).toEqual(h.fakeView().map(([k, rv]): [string, number] => [k, Number(rv)]));
  // One round only (every later round starts after a back-off sleep): every change after its sync point was delivered, once.
  if (h.sleeps.length === 0) {
    const syncRv = fake.syncPoints.at(-1)!;
    const after = changes.filter((rv) => rv > syncRv);
    const got = delivered.map((d) => d.rv).filter((rv) => rv > syncRv);
    expect(got).toEqual(after);
  }
}

describe('informer property: no lost, duplicated or stale change across faults', () => {
  it('the store equals the fake and the handler stream replays to it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ watchList: fc.boolean(), gate: fc.boolean(), pageSize: fc.integer({ min: 1, max: 4 }), anyLag: fc.nat(3), seed: fc.nat(6) }),
        fc.array(cmd, { minLength: 5, maxLength: 80 }),
        runScenario,
      ),
      { numRuns: 300 },
    );
  });
});
