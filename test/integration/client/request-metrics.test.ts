// The transport's rest_client_* records against a loopback HTTP server: one
// result per attempt (retries included, a watch when its headers arrive,
// '<error>' when no response came), one latency per non-watch call, the
// options' sink before the process-wide one, and a sink that throws never
// failing a request.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_RESPONSE_CODE, registerRequestMetrics, type RequestMetricsSink } from '../../../src/client/index.js';
import { createTransport, type TransportOptions } from '../../../src/client/transport/index.js';
import type { ConnectionConfig, Transport } from '../../../src/client/types.js';
import { freePort } from '../../helpers/net.js';
import { testLogger } from '../../helpers/test-logger.js';

type Rec = ['result', string, string, string] | ['latency', string, string];

function recordingSink(): { sink: RequestMetricsSink; recs: Rec[] } {
  const recs: Rec[] = [];
  return {
    recs,
    sink: {
      result: (code, method, host) => recs.push(['result', code, method, host]),
      latency: (verb, host, seconds) => {
        expect(seconds).toBeGreaterThanOrEqual(0);
        recs.push(['latency', verb, host]);
      },
    },
  };
}

const conn = (server: string): ConnectionConfig => ({ server, ca: undefined, insecureSkipTlsVerify: false, tlsServerName: undefined, clientCert: undefined, token: undefined, tokenFile: undefined, namespace: 'default', source: { file: '-', context: '-' } });

describe('client request metrics', () => {
  let server: Server;
  let url: string;
  let host: string;
  const hits = new Map<string, number>();
  const open: Transport[] = [];
  const transport = (extra: Partial<TransportOptions> = {}, to = url): Transport => {
    const t = createTransport(conn(to), { qps: 1000, burst: 1000, eventQps: 1000, eventBurst: 1000, log: testLogger(), sleep: async () => {}, ...extra });
    open.push(t);
    return t;
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      const n = (hits.get(path) ?? 0) + 1;
      hits.set(path, n);
      if (path === '/flaky' && n === 1) res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
      else if (path === '/missing') res.writeHead(404, { 'content-type': 'text/plain' }).end('no');
      else if (path === '/watch') res.writeHead(200, { 'content-type': 'application/json' }).end('');
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    url = `http://127.0.0.1:${port}`;
    host = `127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await Promise.all(open.map((t) => t.close()));
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('counts every attempt by code, method and host, and times the call once', async () => {
    const { sink, recs } = recordingSink();
    const t = transport({ metrics: sink });
    await t.request({ method: 'GET', path: '/flaky', idempotent: true });
    await expect(t.request({ method: 'PUT', path: '/missing' })).rejects.toThrow();
    expect(recs).toEqual([
      ['result', '503', 'GET', host],
      ['result', '200', 'GET', host],
      ['latency', 'GET', host],
      ['result', '404', 'PUT', host],
      ['latency', 'PUT', host],
    ]);
  });

  it('counts a watch when its headers arrive and does not time it', async () => {
    const { sink, recs } = recordingSink();
    const t = transport({ metrics: sink });
    const s = await t.stream({ method: 'GET', path: '/watch' });
    for await (const _ of s.body) void _;
    expect(recs).toEqual([['result', '200', 'GET', host]]);
  });

  it("counts an attempt that got no response as '<error>'", async () => {
    const port = await freePort();
    const { sink, recs } = recordingSink();
    const t = transport({ metrics: sink, retry: { maxRetries: 0 } }, `http://127.0.0.1:${port}`);
    await expect(t.request({ method: 'GET', path: '/x', idempotent: true })).rejects.toThrow();
    expect(recs).toEqual([
      ['result', NO_RESPONSE_CODE, 'GET', `127.0.0.1:${port}`],
      ['latency', 'GET', `127.0.0.1:${port}`],
    ]);
  });

  it('uses the process-wide sink when given none, the own sink first, and survives a sink that throws', async () => {
    const global = recordingSink();
    const undo = registerRequestMetrics(global.sink);
    try {
      const own = recordingSink();
      await transport().request({ method: 'GET', path: '/ok' });
      await transport({ metrics: own.sink }).request({ method: 'GET', path: '/ok' });
      expect(global.recs).toEqual([
        ['result', '200', 'GET', host],
        ['latency', 'GET', host],
      ]);
      expect(own.recs).toHaveLength(2);
      const broken: RequestMetricsSink = {
        result: () => {
          throw new Error('metrics bug');
        },
        latency: () => {
          throw new Error('metrics bug');
        },
      };
      const res = await transport({ metrics: broken }).request({ method: 'GET', path: '/ok' });
      expect(res.status).toBe(200);
    } finally {
      undo();
    }
    const after = recordingSink();
    const undo2 = registerRequestMetrics(after.sink);
    undo2();
    await transport().request({ method: 'GET', path: '/ok' });
    expect(after.recs).toEqual([]);
  });
});
