// The event recorder against the real platform-apiserver (in memory): events
// created as the kubelet's, a repeat patched with count 2 and 3, both as the
// admin and as a node (system:node:node1 under node authorization); the
// events bucket pacing the writes (a gated limiter sleep: no timing); a server
// that is down — the event queued, retried and delivered once it is back, the
// queue bounded; and an abort stopping everything (the tier's leak check).
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadApiCodec, type ApiObject } from '../../../src/api/codec/index.js';
import { MEDIA_JSON } from '../../../src/api/media.js';
import { RESOURCES, type ApiClient, type Transport, type TransportRequest } from '../../../src/client/index.js';
import { loadPlatformConfig } from '../../../src/client/config/index.js';
import { createRestClient } from '../../../src/client/rest/index.js';
import { createTransport } from '../../../src/client/transport/index.js';
import { containerRef, createEventRecorder, nodeRef, podRef, type EventRecorderOptions } from '../../../src/events/index.js';
import { startServer, USERS, type ServerHandle } from '../../conformance/helpers/server.js';
import { testLogger, type LogRecord } from '../../helpers/test-logger.js';

let srv: ServerHandle;
let dir: string;
const NS = 'events-it';

beforeAll(async () => {
  srv = await startServer({ backend: 'memory' });
  dir = await mkdtemp(join(tmpdir(), 'events-it-'));
  const res = await srv.admin.post('/api/v1/namespaces', { metadata: { name: NS } });
  expect(res.status).toBe(201);
}, 60_000);

afterAll(async () => {
  await srv?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** A platformconfig for `server` with the admin's token, or a node's (the token file's node1: system:node:node1). */
async function platformconfig(server: string, who: 'admin' | 'node1'): Promise<string> {
  const file = join(dir, `${who}-${server.replace(/\W/g, '')}.conf`);
  const admin = await loadPlatformConfig(join(srv.dir, 'admin.conf'));
  const token = who === 'admin' ? admin.token : USERS.node1.token;
  const ca = Buffer.from(srv.ca).toString('base64');
  await writeFile(file, `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${server}\n    certificate-authority-data: ${ca}\nusers:\n- name: u\n  user:\n    token: ${token}\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n`);
  return file;
}

interface Client extends ApiClient {
  /** Requests by limiter class, counted as they are handed to the real transport. */
  sent: TransportRequest[];
}

async function client(server: string, who: 'admin' | 'node1', o: { eventQps?: number; eventBurst?: number; sleep?: (ms: number, s: AbortSignal) => Promise<void> } = {}): Promise<Client> {
  const connection = await loadPlatformConfig(await platformconfig(server, who));
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const real = createTransport(connection, { qps: 1000, burst: 1000, eventQps: o.eventQps ?? 1000, eventBurst: o.eventBurst ?? 1000, log: quiet, retry: { maxRetries: 1, initialBackoffMs: 5, maxBackoffMs: 5 }, ...(o.sleep ? { sleep: o.sleep } : {}) });
  const sent: TransportRequest[] = [];
  const transport: Transport = {
    request: (r) => (sent.push(r), real.request(r)),
    stream: (r) => real.stream(r),
    close: () => real.close(),
  };
  const rest = createRestClient({ transport, codec: await loadApiCodec(), contentType: MEDIA_JSON, log: quiet });
  return { connection, transport, rest, close: () => real.close(), sent };
}

async function eventsOf(ns: string, name: string): Promise<ApiObject[]> {
  const res = await srv.admin.get(`/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name=${name}`);
  return ((res.json() as { items: ApiObject[] }).items ?? []);
}

/** Polls the server (bounded) until `pred` holds for the object's events. */
async function until(ns: string, name: string, pred: (evs: ApiObject[]) => boolean): Promise<ApiObject[]> {
  for (let i = 0; i < 200; i++) {
    const evs = await eventsOf(ns, name);
    if (pred(evs)) return evs;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`events of ${ns}/${name}: condition not met; have ${JSON.stringify(await eventsOf(ns, name))}`);
}

/** Resolves when a record matching `msg` is logged (bounded). */
async function logged(records: LogRecord[], msg: string, n = 1): Promise<void> {
  for (let i = 0; i < 400 && records.filter((r) => r.msg === msg).length < n; i++) await new Promise((r) => setTimeout(r, 25));
  expect(records.filter((r) => r.msg === msg).length).toBeGreaterThanOrEqual(n);
}

function started(o: Partial<EventRecorderOptions> & Pick<EventRecorderOptions, 'client'>): { rec: ReturnType<typeof createEventRecorder>; stop: () => Promise<void>; records: LogRecord[] } {
  const records: LogRecord[] = [];
  const rec = createEventRecorder({ component: 'agent', host: 'node1', log: testLogger(records), retry: { tries: 12, intervalMs: 20 }, ...o });
  const ac = new AbortController();
  const done = rec.run(ac.signal);
  return { rec, records, stop: async () => (ac.abort(new Error('test over')), await done) };
}

describe.each([['admin'], ['node1']] as const)('event recorder as %s', (who) => {
  it('creates events as the kubelet names them and patches repeats with count 2 and 3', async () => {
    const c = await client(srv.url, who);
    const { rec, stop } = started({ client: c });
    const pod = { namespace: NS, name: `web-${who}`, uid: `uid-${who}` };
    try {
      rec.event(containerRef(pod, 'app'), 'Normal', 'Pulling', 'Pulling image "busybox"');
      const [first] = await until(NS, pod.name, (e) => e.length === 1);
      expect(first).toMatchObject({ reason: 'Pulling', message: 'Pulling image "busybox"', type: 'Normal', count: 1, source: { component: 'agent', host: 'node1' }, reportingComponent: 'agent', reportingInstance: 'node1', involvedObject: { kind: 'Pod', namespace: NS, name: pod.name, uid: pod.uid, fieldPath: 'spec.containers{app}' } });
      expect((first!['metadata'] as { name: string }).name).toMatch(new RegExp(`^${pod.name}\\.[0-9a-f]+$`));
      rec.event(containerRef(pod, 'app'), 'Normal', 'Pulling', 'Pulling image "busybox"');
      await until(NS, pod.name, (e) => e.length === 1 && e[0]!['count'] === 2);
      rec.event(containerRef(pod, 'app'), 'Normal', 'Pulling', 'Pulling image "busybox"');
      const evs = await until(NS, pod.name, (e) => e.length === 1 && e[0]!['count'] === 3);
      expect(evs[0]!['firstTimestamp']).toBe(first!['firstTimestamp']);
      // A node's own event lands in `default`.
      rec.event(nodeRef('node1'), 'Normal', 'NodeReady', 'Node node1 status is now: NodeReady');
      await until('default', 'node1', (e) => e.some((x) => x['reason'] === 'NodeReady'));
      const methods = c.sent.map((r) => `${r.method} ${r.limiter ?? 'default'}`);
      expect(methods).toEqual(['POST events', 'PATCH events', 'PATCH events', 'POST events']);
    } finally {
      await stop();
      await c.close();
    }
  });
});

describe('event recorder limits and failures', () => {
  it('paces writes by the events bucket: three at once, the fourth after the limiter waited', async () => {
    const waits: number[] = [];
    let release: (() => void) | undefined;
    const sleep = (ms: number, _s: AbortSignal): Promise<void> => {
      waits.push(ms);
      return new Promise((r) => (release = r));
    };
    const c = await client(srv.url, 'admin', { eventQps: 1, eventBurst: 3, sleep });
    const { rec, stop } = started({ client: c });
    const pod = { namespace: NS, name: 'paced', uid: 'uid-paced' };
    try {
      for (const reason of ['A', 'B', 'C', 'D', 'E']) rec.event(podRef(pod), 'Normal', reason, `event ${reason}`);
      await until(NS, pod.name, (e) => e.length === 3);
      for (let i = 0; i < 200 && waits.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(waits).toHaveLength(1);
      expect(waits[0]).toBeGreaterThan(0);
      expect((await eventsOf(NS, pod.name)).length).toBe(3);
      for (let i = 0; i < 2; i++) {
        const r = release;
        release = undefined;
        r?.();
        await until(NS, pod.name, (e) => e.length === 4 + i);
        for (let j = 0; j < 200 && i === 0 && release === undefined; j++) await new Promise((r) => setTimeout(r, 10));
      }
      expect(c.sent.every((r) => r.limiter === 'events')).toBe(true);
      expect(c.sent).toHaveLength(5);
    } finally {
      release?.();
      await stop();
      await c.close();
    }
  });

  it('queues while the server is down, drops the oldest past the bound, and delivers when it is back', async () => {
    const proxy = await tcpProxy(srv.port);
    const c = await client(`https://127.0.0.1:${proxy.port}`, 'admin');
    const { rec, stop, records } = started({ client: c, queueSize: 3, random: () => 0.5 });
    const pod = { namespace: NS, name: 'outage', uid: 'uid-outage' };
    try {
      await proxy.down();
      rec.event(podRef(pod), 'Warning', 'E0', 'first');
      await logged(records, 'Unable to write event (may retry after sleeping)');
      for (const r of ['E1', 'E2', 'E3', 'E4', 'E5']) rec.event(podRef(pod), 'Warning', r, r);
      expect(records.filter((r) => r.msg === 'Event queue full; dropping the oldest events until it drains')).toHaveLength(1);
      await proxy.up();
      const evs = await until(NS, pod.name, (e) => e.length === 4);
      expect(evs.map((e) => e['reason']).sort()).toEqual(['E0', 'E3', 'E4', 'E5']);
      // One outage, logged once.
      expect(records.filter((r) => r.msg === 'Unable to write event (may retry after sleeping)')).toHaveLength(1);
    } finally {
      await stop();
      await c.close();
      await proxy.close();
    }
  });

  it('gives up on an event after the bounded tries, and stops at once on abort while retrying', async () => {
    const proxy = await tcpProxy(srv.port);
    const c = await client(`https://127.0.0.1:${proxy.port}`, 'admin');
    await proxy.down();
    const a = started({ client: c, retry: { tries: 3, intervalMs: 5 } });
    a.rec.event(podRef({ namespace: NS, name: 'never', uid: 'u' }), 'Normal', 'X', 'x');
    await logged(a.records, 'Unable to write event (retry limit exceeded)');
    const b = started({ client: c, retry: { tries: 12, intervalMs: 60_000 } });
    b.rec.event(podRef({ namespace: NS, name: 'never', uid: 'u' }), 'Normal', 'X', 'x');
    await logged(b.records, 'Unable to write event (may retry after sleeping)');
    await Promise.all([a.stop(), b.stop()]);
    // After the stop, nothing is recorded or sent.
    const before = c.sent.length;
    b.rec.event(podRef({ namespace: NS, name: 'never', uid: 'u' }), 'Normal', 'Y', 'y');
    await proxy.up();
    expect(c.sent.length).toBe(before);
    await c.close();
    await proxy.close();
  });
});

/** A TCP pass-through to the server that can refuse connections (down) and accept them again (up) on the same port. */
async function tcpProxy(target: number): Promise<{ port: number; down(): Promise<void>; up(): Promise<void>; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = async (): Promise<void> => {
    const s = createServer((inbound) => {
      const outbound = connect(target, '127.0.0.1');
      for (const x of [inbound, outbound]) {
        sockets.add(x);
        x.on('close', () => sockets.delete(x));
        x.on('error', () => undefined);
      }
      inbound.pipe(outbound).pipe(inbound);
    });
    s.listen(port, '127.0.0.1');
    await once(s, 'listening');
    port = (s.address() as { port: number }).port;
    server = s;
  };
  const down = async (): Promise<void> => {
    const s = server;
    server = undefined;
    if (s === undefined) return;
    const closed = new Promise((r) => s.close(r));
    for (const x of sockets) x.destroy();
    await closed;
  };
  await listen();
  return { port, down, up: listen, close: down };
}
