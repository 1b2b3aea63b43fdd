// The pod status sync against an in-memory pods API: rapid changes coalesce
// (only the latest is sent), an unchanged status sends nothing, a failed
// write is retried until the latest status lands, a pod gone from the API is
// forgotten, a static pod's status goes to its mirror once there, and a
// pod the agent is done with is finished (final status, then a delete with
// the uid precondition).
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, apiErrors } from '../../../src/api/errors.js';
import { applyStrategicMergePatch, schemaForKind, type Json, type JsonObject } from '../../../src/api/patch/index.js';
import type { ApiClient } from '../../../src/client/index.js';
import type { ApiObject, DeleteOptions } from '../../../src/client/types.js';
import type { Pod, PodStatus } from '../../../src/pod-model/pod-types.js';
import { createPodStatusSync, type PodStatusSyncOptions } from '../../../src/pod-sync/status-sync.js';
import type { Informer } from '../../../src/client/types.js';
import { StatusStore } from '../../../src/status/store.js';
import { testLogger } from '../../helpers/test-logger.js';

const GR = { group: '', resource: 'pods' };

class FakePods {
  readonly objects = new Map<string, ApiObject>();
  readonly calls: string[] = [];
  failures = 0;
  private waiters = new Set<() => void>();
  private changed(): void {
    for (const w of [...this.waiters]) w();
  }
  /** Resolves once `fn` holds (checked after every call); bounded by `ms`. */
  until(fn: () => boolean, what: string, ms = 5000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!fn()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}; calls ${this.calls.join(', ')}`));
      }, ms);
      this.waiters.add(check);
      check();
    });
  }
  private fail(verb: string, name: string): void {
    if (this.failures <= 0) return;
    this.failures--;
    this.calls.push(`${verb} ${name} 503`);
    this.changed();
    throw new ApiError(503, 'ServiceUnavailable', 'injected');
  }
  client(): Pick<ApiClient, 'rest'> {
    const rc = (ns: string) => ({
      get: async (name: string) => {
        this.fail('get', name);
        const o = this.objects.get(`${ns}/${name}`);
        this.calls.push(`get ${name}`);
        this.changed();
        if (o === undefined) throw apiErrors.notFound(GR, name);
        return structuredClone(o);
      },
      patch: async (name: string, _t: string, body: unknown) => {
        this.fail('patch', name);
        const o = this.objects.get(`${ns}/${name}`);
        if (o === undefined) throw apiErrors.notFound(GR, name);
        const next = applyStrategicMergePatch(o as JsonObject, body as Json, schemaForKind('v1', 'Pod'));
        this.objects.set(`${ns}/${name}`, next);
        this.calls.push(`patch ${name} ${String((next['status'] as Record<string, unknown> | undefined)?.['phase'])}`);
        this.changed();
        return next;
      },
      delete: async (name: string, opts: DeleteOptions = {}) => {
        this.fail('delete', name);
        const o = this.objects.get(`${ns}/${name}`);
        if (o === undefined) throw apiErrors.notFound(GR, name);
        if (opts.preconditions?.uid !== undefined && opts.preconditions.uid !== (o['metadata'] as Record<string, unknown>)['uid']) throw apiErrors.conflict(GR, name, 'uid precondition');
        this.objects.delete(`${ns}/${name}`);
        this.calls.push(`delete ${name} grace=${String(opts.gracePeriodSeconds)} uid=${String(opts.preconditions?.uid)}`);
        this.changed();
        return o;
      },
    });
    return { rest: { resource: (_type: unknown, ns = '') => rc(ns) } } as unknown as Pick<ApiClient, 'rest'>;
  }
  put(name: string, uid: string, extra: Record<string, unknown> = {}): void {
    this.objects.set(`default/${name}`, { metadata: { name, namespace: 'default', uid, ...extra }, spec: {}, status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True' }] } });
  }
}

const pod = (name: string, uid: string, annotations: Record<string, string> = { 'platform.io/config.source': 'api' }): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid, labels: {}, annotations }, spec: { containers: [] } }) as unknown as Pod;
const st = (phase: PodStatus['phase'], message?: string): PodStatus => ({ phase, conditions: [], containerStatuses: [], ...(message === undefined ? {} : { message }) });

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

function start(api: FakePods, store: StatusStore, resyncMs = 60_000, more: Partial<PodStatusSyncOptions> = {}) {
  const log = testLogger();
  const sync = createPodStatusSync({ client: api.client(), status: store, log, resyncMs, retryInitialMs: 10, ...more });
  const ac = new AbortController();
  const run = sync.run(ac.signal);
  stops.push(async () => {
    ac.abort();
    await run;
  });
  return log;
}

describe('pod status sync', () => {
  it('sends the latest of rapid changes, and nothing for an unchanged status', async () => {
    const api = new FakePods();
    api.put('a', 'ua');
    const store = new StatusStore();
    start(api, store);
    store.set('ua', { pod: pod('a', 'ua'), status: st('Pending', '1') });
    store.set('ua', { pod: pod('a', 'ua'), status: st('Pending', '2') });
    store.set('ua', { pod: pod('a', 'ua'), status: st('Running') });
    await api.until(() => api.calls.includes('patch a Running'), 'the latest status');
    expect(api.calls.filter((c) => c.startsWith('patch'))).toEqual(['patch a Running']);
    // The server's own condition stays.
    expect((api.objects.get('default/a')?.['status'] as Record<string, unknown>)['conditions']).toEqual([{ type: 'PodScheduled', status: 'True' }]);
    const before = api.calls.length;
    store.set('ua', { pod: pod('a', 'ua'), status: st('Running') });
    store.set('ua', { pod: pod('a', 'ua'), status: st('Succeeded') });
    await api.until(() => api.calls.includes('patch a Succeeded'), 'the next change');
    expect(api.calls.slice(before)).toEqual(['get a', 'patch a Succeeded']);
  });

  it('the resync sends nothing for a status already written (the same object, or an equal one) and writes one that changed', async () => {
    const api = new FakePods();
    api.put('a', 'ua');
    const store = new StatusStore();
    start(api, store, 20);
    store.set('ua', { pod: pod('a', 'ua'), status: st('Running') });
    await api.until(() => api.calls.includes('patch a Running'), 'the first write');
    const before = api.calls.length;
    await new Promise((r) => setTimeout(r, 100)); // ~5 resyncs over the same status object
    store.set('ua', { pod: pod('a', 'ua'), status: st('Running') }); // equal content, another object
    await new Promise((r) => setTimeout(r, 100));
    expect(api.calls.slice(before)).toEqual([]);
    store.set('ua', { pod: pod('a', 'ua'), status: st('Running', 'changed') });
    await api.until(() => api.calls.filter((c) => c === 'patch a Running').length === 2, 'the changed status');
    expect((api.objects.get('default/a')?.['status'] as Record<string, unknown>)['message']).toBe('changed');
  });

  it('retries a failed write until the latest status lands, logging the failure once', async () => {
    const api = new FakePods();
    api.put('a', 'ua');
    api.failures = 4;
    const store = new StatusStore();
    const log = start(api, store);
    store.set('ua', { pod: pod('a', 'ua'), status: st('Pending') });
    await api.until(() => api.failures === 2, 'two failures');
    store.set('ua', { pod: pod('a', 'ua'), status: st('Running') });
    await api.until(() => api.calls.includes('patch a Running'), 'the write after the failures');
    expect(api.calls.filter((c) => c.startsWith('patch'))).toEqual(['patch a Running']);
    expect(log.records.filter((r) => r.level === 'error')).toHaveLength(1);
  });

  it('forgets a pod gone from the API, or re-created under another uid', async () => {
    const api = new FakePods();
    api.put('b', 'other-uid');
    const store = new StatusStore();
    start(api, store, 20);
    store.set('ua', { pod: pod('a', 'ua'), status: st('Running') });
    store.set('ub', { pod: pod('b', 'ub'), status: st('Running') });
    await api.until(() => api.calls.includes('get a') && api.calls.includes('get b'), 'both read');
    // Later writes (and the resyncs every 20 ms meanwhile) never ask for them again.
    api.put('d', 'ud');
    store.set('uc', { pod: pod('c', 'uc', {}), status: st('Running') }); // no API target: never sent
    store.set('ud', { pod: pod('d', 'ud'), status: st('Running') });
    await api.until(() => api.calls.includes('patch d Running'), 'the write of d');
    store.set('ud', { pod: pod('d', 'ud'), status: st('Succeeded') });
    await api.until(() => api.calls.includes('patch d Succeeded'), 'the second write of d');
    expect(api.calls.filter((c) => c === 'get a' || c === 'get b' || c === 'get c')).toEqual(['get a', 'get b']);
  });

  it("writes a static pod's status to its mirror pod, once the mirror is there", async () => {
    const api = new FakePods();
    const store = new StatusStore();
    start(api, store, 20);
    store.set('us', { pod: pod('etcd-n1', 'us', { 'platform.io/config.source': 'file', 'platform.io/config.hash': 'h1' }), status: st('Running') });
    await api.until(() => api.calls.includes('get etcd-n1'), 'the first try');
    api.put('etcd-n1', 'mirror-uid', { annotations: { 'platform.io/config.mirror': 'h1' } });
    await api.until(() => api.calls.includes('patch etcd-n1 Running'), 'the status on the mirror');
  });

  it('finishes a pod deleted through the API once its status is dropped: final status, then delete with its uid', async () => {
    const api = new FakePods();
    api.put('a', 'ua', { deletionTimestamp: '2026-11-24T10:00:00Z' });
    const store = new StatusStore();
    start(api, store);
    store.set('ua', { pod: pod('a', 'ua'), status: st('Running') });
    await api.until(() => api.calls.includes('patch a Running'), 'the running status');
    store.delete('ua');
    await api.until(() => api.objects.size === 0, 'the delete');
    expect(api.calls.slice(-3)).toEqual(['get a', 'patch a Failed', 'delete a grace=0 uid=ua']);
  });

  it('finishes a deleted pod only once the pod manager holds nothing of it, also one it never ran', async () => {
    const api = new FakePods();
    api.put('a', 'ua', { deletionTimestamp: '2026-11-24T10:00:00Z' });
    api.put('never', 'un', { deletionTimestamp: '2026-11-24T10:00:00Z' });
    const holding = new Set(['ua', 'un']);
    const informer = { store: { list: () => [...api.objects.values()] }, addHandlers: () => undefined } as unknown as Informer;
    const store = new StatusStore();
    start(api, store, 20, { informer, couldHaveRunningContainers: (uid) => holding.has(uid) });
    store.set('ua', { pod: pod('a', 'ua'), status: st('Running') });
    store.delete('ua');
    // Resyncs read both, and leave them while the manager still holds them.
    await api.until(() => api.calls.filter((c) => c === 'get a').length >= 2 && api.calls.filter((c) => c === 'get never').length >= 2, 'two resyncs');
    expect(api.objects.size).toBe(2);
    holding.clear();
    await api.until(() => api.objects.size === 0, 'both deleted');
    expect(api.calls.filter((c) => c.startsWith('delete'))).toEqual(expect.arrayContaining(['delete a grace=0 uid=ua', 'delete never grace=0 uid=un']));
  });
});
