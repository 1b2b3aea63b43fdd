// Runs an informer over the fake ListerWatcher with a fixed clock, random 0
// (timeouts 300 s, no jitter) and a back-off sleep that only yields a
// macrotask, and records what handlers and the log saw.
import { createInformer, type InformerOptions } from '../../../../src/client/informer/index.js';
import type { ApiObject, ClientLog, Informer } from '../../../../src/client/types.js';
import { FakeListerWatcher, keyOf, rvOf, type FakeOptions } from './fake-lister-watcher.js';

export const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

/** Yields macrotasks until `cond` holds; fails after `max` turns (the fake does everything in-process, so progress needs only turns). */
export async function until(cond: () => boolean, what: string, max = 20_000): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (cond()) return;
    await tick();
  }
  throw new Error(`not reached after ${max} turns: ${what}`);
}

export interface LogLine {
  level: string;
  msg: string;
  fields: Record<string, unknown> | undefined;
}

export interface Harness {
  fake: FakeListerWatcher;
  informer: Informer;
  events: string[];
  logs: LogLine[];
  sleeps: number[];
  stop(): Promise<void>;
  /** The store as key → resourceVersion, sorted. */
  storeView(): [string, string][];
  fakeView(): [string, string][];
}

export function startInformer(o: { fake?: FakeOptions; informer?: Partial<InformerOptions>; run?: boolean } = {}): Harness {
  const fake = new FakeListerWatcher(o.fake);
  const logs: LogLine[] = [];
  const log: ClientLog = {
    info: (msg, fields) => logs.push({ level: 'info', msg, fields }),
    warn: (msg, fields) => logs.push({ level: 'warn', msg, fields }),
    error: (msg, fields) => logs.push({ level: 'error', msg, fields }),
  };
  const sleeps: number[] = [];
  const informer = createInformer(fake, {
    log,
    now: () => 0,
    random: () => 0,
    sleep: async (ms, signal) => {
      sleeps.push(ms);
      await tick();
      if (signal.aborted) throw signal.reason;
    },
    ...o.informer,
  });
  const events: string[] = [];
  const name = (x: ApiObject): string => `${keyOf(x)}@${rvOf(x)}`;
  informer.addHandlers({
    onAdd: (x) => events.push(`add ${name(x)}`),
    onUpdate: (a, b) => events.push(`update ${name(a)}→${rvOf(b)}`),
    onDelete: (x) => events.push(`delete ${name(x)}`),
  });
  const ac = new AbortController();
  const done = o.run === false ? Promise.resolve() : informer.run(ac.signal);
  const view = (objs: Iterable<ApiObject>): [string, string][] => [...objs].map((x): [string, string] => [keyOf(x), rvOf(x)]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
  return {
    fake,
    informer,
    events,
    logs,
    sleeps,
    stop: async () => {
      ac.abort();
      await done;
    },
    storeView: () => view(informer.store.list()),
    fakeView: () => view(fake.state.values()),
  };
}
