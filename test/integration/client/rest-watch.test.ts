// Watch streams of the rest layer against the real platform-apiserver, both
// backends, in JSON and protobuf: events in order with the right kinds, an
// ERROR 410 for a version compacted away, a clean end at timeoutSeconds and
// when the server drops its watches, and close() from our side.
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiObject } from '../../../src/api/codec/index.js';
import { isGone } from '../../../src/api/errors.js';
import { MEDIA_JSON, MEDIA_PROTOBUF } from '../../../src/api/media.js';
import { ApiStatusError } from '../../../src/client/errors.js';
import { RESOURCES, type RestClient } from '../../../src/client/rest/index.js';
import type { WatchEvent } from '../../../src/client/types.js';
import { describeBackends, uniq } from '../../conformance/helpers/backends.js';
import { fault, restClientsPerRepresentation } from './helpers/transport.js';
import { drain } from '../../helpers/watch-drain.js';

const nameOf = (o: ApiObject): unknown => (o['metadata'] as Record<string, unknown>)['name'];
const cm = (name: string, data: Record<string, string> = {}): ApiObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

/** The next `n` non-bookmark events (the test's timeout bounds the wait). */
async function take(it: AsyncIterator<WatchEvent>, n: number): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  while (out.length < n) {
    const r = await it.next();
    if (r.done === true) throw new Error(`the watch ended after ${out.length} of ${n} events`);
    if (r.value.type !== 'BOOKMARK') out.push(r.value);
  }
  return out;
}


describeBackends('client rest: watch', { faults: true }, (srv) => {
  const { clientFor } = restClientsPerRepresentation(srv);

  for (const ct of [MEDIA_JSON, MEDIA_PROTOBUF] as const) {
    describe(ct, () => {
      const rest = (): RestClient => clientFor(ct);
      let ns = '';
      beforeAll(async () => {
        ns = uniq('watch');
        await rest().resource(RESOURCES.namespaces).create({ metadata: { name: ns } });
      });

      it('omitManagedFields: listed and watched objects come without managedFields, everything else as the server sent it', async () => {
        const cms = rest().resource(RESOURCES.configMaps, ns);
        const created = await cms.create(cm('omit1', { a: '1' }));
        expect(Array.isArray((created['metadata'] as Record<string, unknown>)['managedFields'])).toBe(true);
        const listed = await cms.list({ omitManagedFields: true });
        const item = listed.items.find((o) => nameOf(o) === 'omit1');
        expect(item).toBeDefined();
        expect('managedFields' in (item!['metadata'] as object)).toBe(false);
        const w = await cms.watch({ resourceVersion: listed.resourceVersion, timeoutSeconds: 60, omitManagedFields: true });
        const it = w[Symbol.asyncIterator]();
        await cms.update({ ...created, data: { a: '2' } });
        const [ev] = await take(it, 1);
        expect('managedFields' in (ev!.object['metadata'] as object)).toBe(false);
        expect([nameOf(ev!.object), ev!.object['data']]).toEqual(['omit1', { a: '2' }]);
        w.close();
        // Without the option the same objects keep them.
        const full = await cms.list({});
        expect('managedFields' in (full.items.find((o) => nameOf(o) === 'omit1')!['metadata'] as object)).toBe(true);
      });

      it('events after the list’s version, in order, of the watched kind', async () => {
        const cms = rest().resource(RESOURCES.configMaps, ns);
        const { resourceVersion } = await cms.list({});
        const w = await cms.watch({ resourceVersion, allowWatchBookmarks: true, timeoutSeconds: 60 });
        const it = w[Symbol.asyncIterator]();
        const created = await cms.create(cm('w1', { a: '1' }));
        await cms.update({ ...created, data: { a: '2' } });
        await cms.delete('w1');
        const events = await take(it, 3);
        expect(events.map((e) => [e.type, e.object['kind'], nameOf(e.object)])).toEqual([
          ['ADDED', 'ConfigMap', 'w1'],
          ['MODIFIED', 'ConfigMap', 'w1'],
          ['DELETED', 'ConfigMap', 'w1'],
        ]);
        expect(events[1]!.object['data']).toEqual({ a: '2' });
        w.close();
        expect(await it.next()).toMatchObject({ done: true });
      });

      // platform-apiserver answers this as the watch's HTTP status (upstream sends 200 and an ERROR event: the unit tests cover that path).
      it('a version compacted away → 410 Expired', async () => {
        const cms = rest().resource(RESOURCES.configMaps, ns);
        const old = await cms.create(cm(uniq('old')));
        await cms.create(cm(uniq('newer')));
        await fault(srv(), 'compact');
        const rv = String((old['metadata'] as Record<string, unknown>)['resourceVersion']);
        let error: unknown;
        try {
          const w = await cms.watch({ resourceVersion: rv });
          ({ error } = await drain(w));
        } catch (err) {
          error = err;
        }
        expect(error).toBeInstanceOf(ApiStatusError);
        expect(isGone(error)).toBe(true);
        expect(error).toMatchObject({ code: 410 });
      });

      it('the server’s timeoutSeconds ends the iteration cleanly', async () => {
        const cms = rest().resource(RESOURCES.configMaps, ns);
        const { resourceVersion } = await cms.list({});
        const { events, error } = await drain(await cms.watch({ resourceVersion, timeoutSeconds: 1 }));
        expect(error).toBeUndefined();
        expect(events).toEqual([]);
      });

      // The server cuts the connection mid-chunk: the Transport's ClientConnectionError (a clean end would do as well).
      it('watches dropped by the server end the iteration; a list-then-watch with no version starts with ADDED events', async () => {
        const cms = rest().resource(RESOURCES.configMaps, ns);
        await cms.create(cm(uniq('present')));
        const w = await cms.watch({ timeoutSeconds: 60 });
        const it = w[Symbol.asyncIterator]();
        const [first] = await take(it, 1);
        expect(first!.type).toBe('ADDED');
        await fault(srv(), 'drop-watches');
        let done = false;
        let error: unknown;
        for (let i = 0; i < 10_000 && !done; i++) {
          try {
            done = (await it.next()).done === true;
          } catch (err) {
            error = err;
            done = true;
          }
        }
        expect(done).toBe(true);
        if (error !== undefined) expect((error as Error).name).toBe('ClientConnectionError');
      });
    });
  }
});
