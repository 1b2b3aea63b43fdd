// The healthz server over real loopback HTTP on ephemeral ports.

import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentError } from '../../../src/errors.js';
import { LivenessRegistry } from '../../../src/lifecycle/liveness.js';
import { createHealthzServer, type HealthzServer } from '../../../src/server/healthz.js';
import { recordingLog, type RecordingLog } from '../lifecycle/fakes.js';
import { startLeakProbe, type LeakProbe } from '../lifecycle/leak-probe.js';

let probe: LeakProbe;
const stops: (() => Promise<void>)[] = [];

beforeEach(() => {
  probe = startLeakProbe();
});
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  await probe.assertClean();
});

/** A port the OS just handed out and took back; the server under test binds it next. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const addr = s.address();
  await new Promise<void>((r) => s.close(() => r()));
  if (addr === null || typeof addr === 'string') throw new Error('no port');
  return addr.port;
}

interface Started {
  server: HealthzServer;
  port: number;
  liveness: LivenessRegistry;
  log: RecordingLog;
  stop: () => Promise<void>;
}

async function start(opts: { address?: string; port?: number; liveness?: LivenessRegistry; maxVerdictAgeMs?: number; inThread?: boolean } = {}): Promise<Started> {
  const port = opts.port ?? (await freePort());
  const liveness = opts.liveness ?? new LivenessRegistry();
  const log = recordingLog();
  // Verdicts are asked for on every request unless a test says otherwise: the cases flip checks between requests.
  const server = createHealthzServer({ address: opts.address ?? '127.0.0.1', port, liveness, log, maxVerdictAgeMs: opts.maxVerdictAgeMs ?? 0, inThread: opts.inThread ?? false });
  const ctl = new AbortController();
  const running = server.run(ctl.signal);
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    ctl.abort();
    await running;
  };
  stops.push(stop);
  await server.ready;
  return { server, port, liveness, log, stop };
}

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function call(port: number, path: string, opts: { method?: string; agent?: Agent; host?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: opts.host ?? '127.0.0.1', port, path, method: opts.method ?? 'GET', agent: opts.agent ?? false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('GET /healthz', () => {
  it('answers 200 "ok" as text/plain while every check passes', async () => {
    const { port, liveness } = await start();
    liveness.register('syncloop', () => true);
    const r = await call(port, '/healthz');
    expect(r.status).toBe(200);
    expect(r.body).toBe('ok');
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(r.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers 500 listing each check, withholding reasons, and logs the reasons', async () => {
    const { port, liveness, log } = await start();
    liveness.register('syncloop', () => true);
    liveness.register('pleg', () => 'relist took 4m');
    const r = await call(port, '/healthz');
    expect(r.status).toBe(500);
    expect(r.body).toBe('[+]syncloop ok\n[-]pleg failed: reason withheld\nhealthz check failed\n');
    expect(log.lines).toContainEqual({
      level: 'info',
      msg: 'healthz check failed',
      fields: { failures: ['pleg: relist took 4m'] },
    });
  });

  it('recovers to 200 once the check passes again', async () => {
    const { port, liveness } = await start();
    let healthy = false;
    liveness.register('syncloop', () => (healthy ? true : 'stalled'));
    expect((await call(port, '/healthz')).status).toBe(500);
    healthy = true;
    expect((await call(port, '/healthz')).status).toBe(200);
  });

  it('lists the checks on success with ?verbose; reports ping when nothing is registered', async () => {
    const { port, liveness } = await start();
    expect((await call(port, '/healthz?verbose')).body).toBe('[+]ping ok\nhealthz check passed\n');
    liveness.register('syncloop', () => true);
    expect((await call(port, '/healthz?verbose')).body).toBe('[+]syncloop ok\nhealthz check passed\n');
  });

  it('skips excluded checks and warns about unknown exclusions', async () => {
    const { port, liveness } = await start();
    liveness.register('pleg', () => 'down');
    liveness.register('syncloop', () => true);
    const r = await call(port, '/healthz?exclude=pleg&exclude=nope&verbose');
    expect(r.status).toBe(200);
    expect(r.body).toBe(
      '[+]pleg excluded: ok\n[+]syncloop ok\nwarn: some health checks cannot be excluded: no matches for "nope"\nhealthz check passed\n',
    );
  });

  it('answers HEAD with the status and no body', async () => {
    const { port, liveness } = await start();
    expect(await call(port, '/healthz', { method: 'HEAD' })).toMatchObject({ status: 200, body: '' });
    liveness.register('pleg', () => 'down');
    expect(await call(port, '/healthz', { method: 'HEAD' })).toMatchObject({ status: 500, body: '' });
  });
});

describe('other requests', () => {
  it('serves single checks at /healthz/<name>', async () => {
    const { port, liveness } = await start();
    liveness.register('syncloop', () => true);
    liveness.register('pleg', () => 'relist stuck');
    expect(await call(port, '/healthz/syncloop')).toMatchObject({ status: 200, body: 'ok' });
    expect(await call(port, '/healthz/pleg')).toMatchObject({
      status: 500,
      body: 'internal server error: relist stuck\n',
    });
    expect((await call(port, '/healthz/nope')).status).toBe(404);
  });

  it('answers 404 elsewhere and 405 to other methods', async () => {
    const { port } = await start();
    expect(await call(port, '/')).toMatchObject({ status: 404, body: '404 page not found\n' });
    expect((await call(port, '/healthzz')).status).toBe(404);
    expect((await call(port, '/metrics')).status).toBe(404);
    const post = await call(port, '/healthz', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });
});

describe('lifecycle', () => {
  it('does nothing and is ready at once with port 0', async () => {
    const server = createHealthzServer({
      address: '127.0.0.1',
      port: 0,
      liveness: new LivenessRegistry(),
      log: recordingLog(),
    });
    const ctl = new AbortController();
    const running = server.run(ctl.signal);
    await server.ready;
    expect(server.address()).toBeUndefined();
    ctl.abort();
    await running;
  });

  it('reports where it listens and forgets it once stopped', async () => {
    const { server, port, stop } = await start();
    expect(server.address()).toMatchObject({ address: '127.0.0.1', port });
    await stop();
    expect(server.address()).toBeUndefined();
  });

  it('binds every interface for "::"', async () => {
    const { server, port } = await start({ address: '::' });
    expect(server.address()?.port).toBe(port);
    expect((await call(port, '/healthz', { host: '127.0.0.1' })).status).toBe(200);
  });

  it('rejects ready and run with an AgentError naming address:port when the port is taken', async () => {
    const port = await freePort();
    const squatter: Server = createServer();
    await new Promise<void>((r) => squatter.listen(port, '127.0.0.1', r));
    stops.push(() => new Promise<void>((r) => squatter.close(() => r())));
    const server = createHealthzServer({
      address: '127.0.0.1',
      port,
      liveness: new LivenessRegistry(),
      log: recordingLog(),
    });
    const running = server.run(new AbortController().signal);
    const err = await server.ready.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentError);
    expect(err).toMatchObject({ code: 'ESTARTUP' });
    expect((err as AgentError).message).toMatch(new RegExp(`^healthz server cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
    await expect(running).rejects.toBe(err);
  });

  it('closes keep-alive connections promptly on abort', async () => {
    const { port, stop } = await start();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    stops.push(async () => agent.destroy());
    expect((await call(port, '/healthz', { agent })).status).toBe(200);
    const sockets = Object.values(agent.freeSockets).flat();
    expect(sockets).toHaveLength(1);
    const socket = sockets[0] as Socket;
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    const t0 = performance.now();
    await stop();
    await closed;
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it('closes a connection with a request still in flight promptly on abort', async () => {
    const { port, stop } = await start();
    const socket = connect(port, '127.0.0.1');
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.on('error', () => {});
    await new Promise<void>((r) => socket.once('connect', () => r()));
    // Headers never finish: node's close() alone would wait for headersTimeout (60 s).
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    await new Promise((r) => setImmediate(r));
    const t0 = performance.now();
    await stop();
    await closed;
    expect(performance.now() - t0).toBeLessThan(1000);
  });
});

describe('where the health port runs', () => {
  it('answers from its copy of the verdicts while it is younger than maxVerdictAgeMs, then asks again', async () => {
    let healthy = true;
    let evaluations = 0;
    const liveness = new LivenessRegistry();
    liveness.register('pleg', () => (++evaluations, healthy ? true : 'relist stuck'));
    const { port, log } = await start({ liveness, maxVerdictAgeMs: 60_000 });
    expect((await call(port, '/healthz')).status).toBe(200);
    healthy = false;
    // Within the age: the copy answers, and the check is not run again.
    expect((await call(port, '/healthz')).status).toBe(200);
    expect(evaluations).toBe(1);
    const fresh = await start({ liveness: (() => { const l = new LivenessRegistry(); l.register('pleg', () => 'relist stuck'); return l; })(), maxVerdictAgeMs: 0 });
    expect((await call(fresh.port, '/healthz')).status).toBe(500);
    expect(fresh.log.lines.some((r) => r.msg === 'healthz check failed')).toBe(true);
    expect(log.lines.find((r) => r.msg === 'healthz server listening')?.fields).toMatchObject({ thread: 'worker' });
  });

  it('on the agent\'s thread (inThread): the same answers, the checks run per request', async () => {
    let healthy = false;
    const liveness = new LivenessRegistry();
    liveness.register('syncloop', () => (healthy ? true : 'stalled'));
    const { port, log, stop } = await start({ liveness, inThread: true });
    expect(log.lines.find((r) => r.msg === 'healthz server listening')?.fields).toMatchObject({ thread: 'agent' });
    expect((await call(port, '/healthz')).status).toBe(500);
    healthy = true;
    const ok = await call(port, '/healthz');
    expect([ok.status, ok.body, ok.headers['content-type']]).toEqual([200, 'ok', 'text/plain; charset=utf-8']);
    expect((await call(port, '/nope')).status).toBe(404);
    await stop();
  });
});

