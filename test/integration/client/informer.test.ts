// The informer against the real platform-apiserver (both backends, WatchList
// on and off): 5 000 changes to ConfigMaps while watches are dropped, the
// history is compacted (410 on the next watch and on exact lists) and
// continue tokens expire mid-list; at the end the informer's store equals
// the server's list exactly, and its handler stream replays to it with no
// version twice and none going back.
//
// The informer reads through the client's own rest layer (real transport,
// protobuf or JSON), wrapped only to count requests and to make a chosen
// continuation page slow enough for its token to expire.
import { expect, it } from 'vitest';
import { loadApiCodec } from '../../../src/api/codec/index.js';
import { isGone } from '../../../src/api/errors.js';
import { MEDIA_JSON, MEDIA_PROTOBUF } from '../../../src/api/media.js';
import { createInformer } from '../../../src/client/informer/index.js';
import { RESOURCES, createRestClient } from '../../../src/client/rest/index.js';
import type { ApiObject, ClientLog, ListOptions, ListPage, ListerWatcher, ResourceClient, WatchEvent, WatchOptions, WatchStream } from '../../../src/client/types.js';
import { BACKENDS, describeBackends } from '../../conformance/helpers/backends.js';
import { makeNamespace, ns } from '../../conformance/helpers/objects.js';
import { testTransport } from './helpers/transport.js';

const CHANGES = 5_000;
const SEED = 300;
const WRITERS = 4;
const CONTINUE_LIFETIME_MS = 1_000;

interface Counters {
  lists: number;
  continues: number;
  watches: number;
  gone: number;
  delayedContinues: number;
  /** When set, the next continuation page waits past the token's lifetime (a slow client). */
  expireNextContinue: boolean;
  /**
   * While set, a watch event that arrives is held and then dropped with its
   * stream (as if the connection had been cut just before it): the informer
   * stays behind a change it has not seen, so a compaction meanwhile makes
   * its resumed watch 410 whatever the timing.
   */
  hold: Promise<void> | undefined;
}

const metaOf = (o: ApiObject): Record<string, unknown> => (o['metadata'] ?? {}) as Record<string, unknown>;
const nameOf = (o: ApiObject): string => String(metaOf(o)['name']);
const rvOf = (o: ApiObject): number => Number(metaOf(o)['resourceVersion']);

/** `rc` as a ListerWatcher that counts lists, continues, watches and 410s, and delays one continuation page on request. */
function countingListerWatcher(rc: ResourceClient, counters: Counters): ListerWatcher {
  const gone = (e: unknown): never => {
    if (isGone(e)) counters.gone++;
    throw e;
  };
  return {
    type: rc.type,
    namespace: rc.namespace,
    async list(opts: ListOptions): Promise<ListPage> {
      counters.lists++;
      if (opts.continue !== undefined) {
        counters.continues++;
        if (counters.expireNextContinue) {
          counters.expireNextContinue = false;
          counters.delayedContinues++;
          await new Promise((r) => setTimeout(r, CONTINUE_LIFETIME_MS + 500));
        }
      }
      return rc.list(opts).catch(gone);
    },
    async watch(opts: WatchOptions): Promise<WatchStream> {
      counters.watches++;
      const stream = await rc.watch(opts).catch(gone);
      async function* events(): AsyncGenerator<WatchEvent> {
        try {
          for await (const ev of stream) {
            if (counters.hold !== undefined) {
              await counters.hold;
              return;
            }
            yield ev;
          }
        } catch (e) {
          gone(e);
        }
      }
      const it = events();
      return { [Symbol.asyncIterator]: () => it, close: () => stream.close() };
    },
  };
}

/** The informer's handler stream, checked as it comes and replayable to a state. */
function streamChecker(): { onAdd(o: ApiObject): void; onUpdate(a: ApiObject, b: ApiObject): void; onDelete(o: ApiObject): void; replay: Map<string, number>; problems: string[] } {
  const replay = new Map<string, number>();
  const last = new Map<string, number>();
  const seen = new Set<number>();
  const problems: string[] = [];
  const fresh = (name: string, rv: number): void => {
    if (seen.has(rv)) problems.push(`${name}: version ${rv} delivered twice`);
    if (rv <= (last.get(name) ?? 0)) problems.push(`${name}: version ${rv} after ${last.get(name)}`);
    seen.add(rv);
    last.set(name, rv);
  };
  return {
    replay,
    problems,
    onAdd(o) {
      if (replay.has(nameOf(o))) problems.push(`${nameOf(o)}: added twice`);
      fresh(nameOf(o), rvOf(o));
      replay.set(nameOf(o), rvOf(o));
    },
    onUpdate(a, b) {
      if (replay.get(nameOf(b)) !== rvOf(a)) problems.push(`${nameOf(b)}: update from ${rvOf(a)} but the stream had ${replay.get(nameOf(b))}`);
      fresh(nameOf(b), rvOf(b));
      replay.set(nameOf(b), rvOf(b));
    },
    onDelete(o) {
      const had = replay.get(nameOf(o));
      if (had === undefined) problems.push(`${nameOf(o)}: deleted but never added`);
      else if (rvOf(o) !== had) fresh(nameOf(o), rvOf(o));
      replay.delete(nameOf(o));
    },
  };
}

// Each mode meets both representations across the two backends (protobuf on the first backend with WatchList off, on the second with it on).
const representation = (watchList: boolean, backend: string): typeof MEDIA_JSON | typeof MEDIA_PROTOBUF => ((backend === BACKENDS[0]) !== watchList ? MEDIA_PROTOBUF : MEDIA_JSON);

for (const watchList of [false, true]) {
  describeBackends(`informer against platform-apiserver, WatchList ${watchList ? 'on' : 'off'}`, { faults: true, extraArgs: [`--continue-token-lifetime=${CONTINUE_LIFETIME_MS / 1000}s`], ...(watchList ? { featureGates: 'WatchList=true' } : {}) }, (srv, backend) => {
    const contentType = representation(watchList, backend);
    it(`(${contentType}) survives watch drops, compaction and expired continue tokens over ${CHANGES} changes, ending equal to the server`, async () => {
      const s = srv();
      const c = s.admin;
      const transport = await testTransport(s);
      const namespace = await makeNamespace(c, 'inf');
      const path = `${ns(namespace)}/configmaps`;
      const live = new Set<string>();
      let serial = 0;
      const create = async (): Promise<void> => {
        const name = `cm-${serial++}`;
        const r = await c.post(path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: '0' } });
        expect(r.status, r.text()).toBe(201);
        live.add(name);
      };
      for (let i = 0; i < SEED; i++) await create();
      const counters: Counters = { lists: 0, continues: 0, watches: 0, gone: 0, delayedContinues: 0, expireNextContinue: false, hold: undefined };
      const logs: string[] = [];
      const log: ClientLog = { info: (m) => logs.push(`info ${m}`), warn: (m, f) => logs.push(`warn ${m} ${JSON.stringify(f)}`), error: (m, f) => logs.push(`error ${m} ${JSON.stringify(f)}`) };
      const rest = createRestClient({ transport, codec: await loadApiCodec(), contentType, log });
      const informer = createInformer(countingListerWatcher(rest.resource(RESOURCES.configMaps, namespace), counters), { log, watchList, pageSize: 50, sleep: (ms, signal) => shortSleep(Math.min(ms, 200), signal) });
      const check = streamChecker();
      let onChange: (() => void) | undefined;
      informer.addHandlers({
        onAdd: (o) => (check.onAdd(o), onChange?.()),
        onUpdate: (a, b) => (check.onUpdate(a, b), onChange?.()),
        onDelete: (o) => (check.onDelete(o), onChange?.()),
      });
      const ac = new AbortController();
      const running = informer.run(ac.signal);
      try {
        await informer.synced;
        let done = 0;
        const fault = async (path: string): Promise<void> => {
          expect((await c.post(`/debug/faults/${path}`, {})).status).toBe(200);
        };
        const writer = async (w: number): Promise<void> => {
          for (let i = w; i < CHANGES; i += WRITERS) {
            const mine = [...live].filter((n) => Number(n.slice(3)) % WRITERS === w);
            const roll = (i * 7919) % 10;
            if (mine.length === 0 || roll < 3) {
              const name = `cm-${w + WRITERS * serial++}`;
              const r = await c.post(path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: '0' } });
              expect(r.status, r.text()).toBe(201);
              live.add(name);
            } else if (roll < 5) {
              const name = mine[i % mine.length]!;
              live.delete(name);
              expect((await c.delete(`${path}/${name}`)).status).toBe(200);
            } else {
              const name = mine[i % mine.length]!;
              expect((await c.patch(`${path}/${name}`, { data: { v: String(i) } }, 'application/merge-patch+json')).status).toBe(200);
            }
            done++;
            if (w !== 0) continue;
            // Not right before the compaction below: the watch it cuts must have had events, or its end counts as a very short watch and the informer relists (a streaming list under WatchList, which never 410s) instead of resuming.
            if (i % 600 === 0 && i % 1_200 !== 0) await fault('drop-watches');
            if (i % 1_200 === 0 && i > 0) {
              // A change the informer cannot see yet, then compaction past it: the resumed watch fails with 410; the relist at the last version (exact, paged) 410s too, and its consistent retry meets a slow continuation.
              let release = (): void => undefined;
              counters.hold = new Promise<void>((r) => (release = r));
              counters.expireNextContinue = true;
              const held = await c.post(path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `held-${i}` }, data: { v: '0' } });
              expect(held.status, held.text()).toBe(201);
              await fault('compact');
              await fault('drop-watches');
              counters.hold = undefined;
              release();
            }
          }
        };
        await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
        expect(done).toBe(CHANGES);
        const final = (await c.get(path)).json() as { items: ApiObject[] };
        const want = final.items.map((o): [string, number] => [nameOf(o), rvOf(o)]).sort();
        const view = (): [string, number][] => informer.store.list().map((o): [string, number] => [nameOf(o), rvOf(o)]).sort();
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`store never equalled the server: ${informer.store.size} vs ${want.length}; ${JSON.stringify(counters)}\n${logs.join('\n')}`)), 60_000);
          const test = (): void => {
            if (JSON.stringify(view()) !== JSON.stringify(want)) return;
            clearTimeout(timer);
            onChange = undefined;
            resolve();
          };
          onChange = test;
          test();
        });
        expect(check.problems).toEqual([]);
        expect([...check.replay.entries()].sort()).toEqual(want);
        expect(counters.gone, JSON.stringify(counters)).toBeGreaterThan(0);
        // Streaming lists do not page: only list-and-watch meets expired continue tokens.
        if (!watchList) expect(counters.delayedContinues, JSON.stringify(counters)).toBeGreaterThan(0);
        expect(logs.filter((l) => l.startsWith('error'))).toEqual([]);
      } finally {
        ac.abort();
        await running;
        await transport.close();
      }
    }, 240_000);
  });
}

/** The informer's back-off, capped so the test does not wait 30 s at the cap; cleared on abort. */
function shortSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const done = (): void => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      if (signal.aborted) reject(signal.reason);
      else resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
