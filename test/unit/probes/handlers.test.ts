// The four handlers against small servers on 127.0.0.1: HTTP (status codes,
// headers, redirects to the same and to another host, too many redirects,
// the 10 KiB body cap, the timeout), HTTPS with a self-signed certificate,
// TCP, gRPC health (SERVING flipped by the test), and exec over a stub runtime.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CriError } from '../../../src/cri/errors.js';
import { resolvePort, UnknownPortError, type ActionTarget } from '../../../src/probes/action.js';
import { runExec } from '../../../src/probes/exec.js';
import { loadHealth, runGrpc } from '../../../src/probes/grpc.js';
import { httpGetUrl, runHttpGet } from '../../../src/probes/http.js';
import { runTcpSocket } from '../../../src/probes/tcp.js';
import { userAgentFor } from '../../../src/probes/run-action.js';

const FIXTURES = new URL('../../fixtures/probes/', import.meta.url);
const UA = userAgentFor('probe');
const target = (extra: Partial<ActionTarget> = {}): ActionTarget => ({ containerId: 'c1', podIP: '127.0.0.1', ports: [{ name: 'web', containerPort: 1, protocol: 'TCP' }], timeoutMs: 1000, signal: new AbortController().signal, ...extra });
const portOf = (s: { address(): AddressInfo | string | null }): number => (s.address() as AddressInfo).port;

function listen(s: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(portOf(s))));
}

describe('httpGet', () => {
  let server: Server;
  let port: number;
  let seen: IncomingHttpHeaders[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers);
      const u = new URL(req.url ?? '/', 'http://x');
      const n = Number(u.searchParams.get('n') ?? '0');
      switch (u.pathname) {
        case '/ok': return void res.end('fine');
        case '/status': return void res.writeHead(Number(u.searchParams.get('code'))).end('body');
        case '/hop': return void res.writeHead(302, { location: n > 0 ? `/hop?n=${n - 1}` : '/ok' }).end();
        case '/loop': return void res.writeHead(302, { location: '/loop' }).end();
        case '/away': return void res.writeHead(301, { location: 'http://localhost:1/elsewhere' }).end('moved');
        case '/big': return void res.end('x'.repeat(1 << 20));
        case '/slow': return void setTimeout(() => res.end('late'), 2_000).unref();
        default: return void res.writeHead(404).end();
      }
    });
    port = await listen(server);
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const get = (path: string, extra: Partial<ActionTarget> = {}, headers?: Array<{ name: string; value: string }>) =>
    runHttpGet({ port, path, ...(headers ? { httpHeaders: headers } : {}) }, target(extra), UA);

  it.each([
    ['200 is a success with the body', '/ok', 'success', 'fine'],
    ['204 is a success', '/status?code=204', 'success', ''],
    ['399 is a warning (a success)', '/status?code=399', 'warning', 'Probe terminated redirects, Response body: body'],
    ['400 is a failure', '/status?code=400', 'failure', 'HTTP probe failed with statuscode: 400'],
    ['500 is a failure', '/status?code=500', 'failure', 'HTTP probe failed with statuscode: 500'],
    ['redirects on the same host are followed', '/hop?n=5', 'success', 'fine'],
  ])('%s', async (_, path, result, output) => {
    expect(await get(path)).toMatchObject({ result, output });
  });

  it('stops after 10 redirects on the same host: a failure', async () => {
    const r = await get('/loop');
    expect(r.result).toBe('failure');
    expect(r.output).toMatch(/stopped after 10 redirects/);
  });

  it('a redirect to another host is not followed: a success with a warning', async () => {
    const r = await get('/away');
    expect(r).toMatchObject({ result: 'warning', status: 301, offHostRedirect: 'http://localhost:1/elsewhere' });
  });

  it('reads at most 10 KiB of the body', async () => {
    const r = await get('/big');
    expect(r.result).toBe('success');
    expect(r.output.length).toBeLessThanOrEqual(10 * 1024 + 1);
  });

  it('a response slower than the timeout is a failure', async () => {
    const r = await get('/slow', { timeoutMs: 200 });
    expect(r.result).toBe('failure');
    expect(r.output).toMatch(/Client.Timeout exceeded/);
  });

  it('a refused connection is a failure, not an error', async () => {
    const r = await runHttpGet({ port: 1, path: '/' }, target(), UA);
    expect(r.result).toBe('failure');
    expect(r.status).toBeUndefined();
  });

  it('sends User-Agent and Accept unless the spec sets them, the spec headers, and no keep-alive', async () => {
    seen = [];
    await get('/ok');
    expect(seen[0]).toMatchObject({ 'user-agent': expect.stringMatching(/^platform-probe\/\d+\.\d+$/), accept: '*/*', connection: 'close' });
    seen = [];
    await get('/ok', {}, [{ name: 'User-Agent', value: 'mine' }, { name: 'X-Custom', value: 'v' }, { name: 'Host', value: 'example.test' }]);
    expect(seen[0]).toMatchObject({ 'user-agent': 'mine', 'x-custom': 'v', accept: '*/*', host: 'example.test' });
  });

  it.each<[string, Parameters<typeof httpGetUrl>[0], string]>([
    ['host defaults to the pod IP, path gets its slash', { port: 8080, path: 'healthz' }, 'http://10.0.0.5:8080/healthz'],
    ['a port by name', { port: 'web', path: '/' }, 'http://10.0.0.5:1/'],
    ['HTTPS with a host and a query', { port: 443, host: 'example.test', scheme: 'HTTPS', path: '/x?y=1' }, 'https://example.test/x?y=1'],
    ['an IPv6 host in brackets', { port: 80, host: 'fd00::1' }, 'http://[fd00::1]/'],
  ])('URL: %s', (_, action, url) => {
    expect(httpGetUrl(action, { podIP: '10.0.0.5', ports: [{ name: 'web', containerPort: 1, protocol: 'TCP' }] }).href).toBe(url);
  });

  it('a port name the container does not declare is an error naming it', () => {
    expect(() => resolvePort('nope', [])).toThrow(UnknownPortError);
    expect(resolvePort('8080', [])).toBe(8080);
  });
});

describe('httpGet over HTTPS', () => {
  it('does not verify the certificate (self-signed)', async () => {
    const server = createHttpsServer({ cert: readFileSync(new URL('tls.crt', FIXTURES)), key: readFileSync(new URL('tls.key', FIXTURES)) }, (_, res) => res.end('secure'));
    const port = await listen(server as unknown as Server);
    try {
      expect(await runHttpGet({ port, scheme: 'HTTPS', path: '/' }, target(), UA)).toMatchObject({ result: 'success', output: 'secure' });
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('tcpSocket', () => {
  it('a connection is a success; a refusal is a failure', async () => {
    const server = createTcpServer((s) => s.destroy());
    const port = await listen(server);
    try {
      expect(await runTcpSocket({ port }, target())).toEqual({ result: 'success', output: '' });
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
    const refused = await runTcpSocket({ port }, target());
    expect(refused.result).toBe('failure');
    expect(refused.output).toMatch(/ECONNREFUSED/);
  });
});

describe('grpc', () => {
  it('SERVING is a success; NOT_SERVING and an unknown service fail', async () => {
    const { request, response, grpc } = await loadHealth();
    const status = new Map<string, number>([['', 1], ['db', 2]]);
    const server = new grpc.Server();
    server.addService(
      {
        check: {
          path: '/grpc.health.v1.Health/Check',
          requestStream: false,
          responseStream: false,
          requestSerialize: (v: object) => Buffer.from(request.encode(request.fromObject(v)).finish()),
          requestDeserialize: (b: Buffer) => request.toObject(request.decode(b)) as { service?: string },
          responseSerialize: (v: object) => Buffer.from(response.encode(response.fromObject(v)).finish()),
          responseDeserialize: (b: Buffer) => response.toObject(response.decode(b)),
        },
      },
      {
        check: (call: { request: { service?: string } }, cb: (err: unknown, res?: object) => void) => {
          const s = status.get(call.request.service ?? '');
          if (s === undefined) cb({ code: grpc.status.NOT_FOUND, details: 'unknown service' });
          else cb(null, { status: s });
        },
      } as never,
    );
    const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
    try {
      expect(await runGrpc({ port }, target(), UA)).toEqual({ result: 'success', output: '' });
      expect(await runGrpc({ port, service: 'db' }, target(), UA)).toEqual({ result: 'failure', output: 'service unhealthy (responded with "NOT_SERVING")' });
      status.set('db', 1);
      expect((await runGrpc({ port, service: 'db' }, target(), UA)).result).toBe('success');
      expect((await runGrpc({ port, service: 'other' }, target(), UA)).result).toBe('failure');
    } finally {
      server.forceShutdown();
    }
  });
});

describe('exec', () => {
  const rt = (fn: () => Promise<{ exitCode: number; out?: string }>) => ({
    execSync: async () => {
      const r = await fn();
      return { stdout: Buffer.from(r.out ?? ''), stderr: Buffer.alloc(0), exitCode: r.exitCode };
    },
  });
  it.each([
    ['exit 0 is a success', { exitCode: 0, out: 'ok' }, { result: 'success', output: 'ok' }],
    ['exit 1 is a failure with the output', { exitCode: 1, out: 'broken' }, { result: 'failure', output: 'broken' }],
    ['exit 2 without output names the code', { exitCode: 2 }, { result: 'failure', output: 'command "check" exited with 2' }],
  ])('%s', async (_, answer, want) => {
    expect(await runExec(rt(async () => answer), { command: ['check'] }, target())).toEqual(want);
  });

  it('a timeout in the runtime (DEADLINE_EXCEEDED) is a failure', async () => {
    const r = await runExec({ execSync: () => Promise.reject(new CriError('DEADLINE_EXCEEDED', 'timeout 1s exceeded')) }, { command: ['sleep', '9'] }, target());
    expect(r).toEqual({ result: 'failure', output: 'command "sleep 9" timed out' });
  });

  it('asks the runtime to bound the command by the timeout in whole seconds', async () => {
    let asked = -1;
    await runExec({ execSync: async (_id, _cmd, t) => ((asked = t), { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), exitCode: 0 }) }, { command: ['x'] }, target({ timeoutMs: 3000 }));
    expect(asked).toBe(3);
  });

  it('a runtime that cannot run the command throws (a prober error, no verdict)', async () => {
    await expect(runExec({ execSync: () => Promise.reject(new CriError('FAILED_PRECONDITION', 'not running')) }, { command: ['x'] }, target())).rejects.toThrow(/not running/);
  });
});
