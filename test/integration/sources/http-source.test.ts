// The URL source against a real HTTP server on 127.0.0.1.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { createUrlSource } from '../../../src/sources/http.js';
import { createManifestParser } from '../../../src/sources/parser.js';
import { testLogger, type LogRecord } from '../../helpers/test-logger.js';

const podJson = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'i:1' }] } });
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Reply {
  status: number;
  body: string;
}

async function server(reply: () => Reply) {
  const seen: Array<{ headers: IncomingHttpHeaders; raw: string[] }> = [];
  const srv: Server = createServer((req, res) => {
    seen.push({ headers: req.headers, raw: req.rawHeaders });
    const r = reply();
    res.writeHead(r.status, { 'content-type': 'application/json' }).end(r.body);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  const close = () => new Promise<void>((r) => srv.close(() => r()));
  cleanups.push(async () => {
    srv.closeAllConnections();
    if (srv.listening) await close();
  });
  return { url: `http://127.0.0.1:${port}/pods`, seen, close: async () => { srv.closeAllConnections(); await close(); } };
}

function source(url: string, headers: Record<string, string[]> = {}, extra: { maxBytes?: number } = {}) {
  const sets: Pod[][] = [];
  const records: LogRecord[] = [];
  const parser = createManifestParser({ log: testLogger(records) });
  const src = createUrlSource({ url, headers, node: 'n', checkFrequencyMs: 50, log: testLogger(records), parser, onPods: (p) => void sets.push(p), requestTimeoutMs: 2000, ...extra });
  const ac = new AbortController();
  const done = src.run(ac.signal);
  cleanups.push(async () => {
    ac.abort();
    await done;
    await parser.close();
  });
  const until = async (pred: () => boolean, ms = 5000) => {
    const deadline = Date.now() + ms;
    while (!pred()) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  return { sets, records, ready: src.ready, until };
}

describe('URL source', () => {
  it('sends the headers (repeated names in order) and reads a Pod or a PodList', async () => {
    let body = JSON.stringify(podJson('one'));
    const s = await server(() => ({ status: 200, body }));
    const src = source(s.url, { 'X-Token': ['a', 'b'], 'X-Other': ['c'] });
    await src.ready;
    expect(src.sets.at(-1)!.map((p) => p.metadata.name)).toEqual(['one-n']);
    const raw = s.seen[0]!.raw;
    const pairs: string[] = [];
    for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase().startsWith('x-')) pairs.push(`${raw[i]}: ${raw[i + 1]}`);
    expect(pairs).toEqual(['X-Token: a', 'X-Token: b', 'X-Other: c']);
    body = JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items: [podJson('a'), podJson('b')] });
    await src.until(() => src.sets.at(-1)!.length === 2);
    expect(src.sets.at(-1)!.map((p) => p.metadata.name)).toEqual(['a-n', 'b-n']);
  });

  it('keeps the last good set through errors, bad bodies and the server going away, logging each reason once', async () => {
    let reply: Reply = { status: 200, body: JSON.stringify(podJson('one')) };
    const s = await server(() => reply);
    const src = source(s.url);
    await src.ready;
    const good = src.sets.length;
    reply = { status: 500, body: 'oops' };
    await src.until(() => s.seen.length >= good + 3);
    reply = { status: 200, body: '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"},"spec":{"containers":[]}}' };
    await src.until(() => src.records.filter((r) => r.level === 'error').length >= 2);
    reply = { status: 200, body: '' };
    await src.until(() => src.records.filter((r) => r.level === 'error').length >= 3);
    await s.close();
    await src.until(() => src.records.filter((r) => r.level === 'error').length >= 4);
    expect(src.sets.length).toBe(good);
    expect(src.records.filter((r) => r.level === 'error').map((r) => r.fields['err'])).toEqual([
      'HTTP status 500',
      'spec.containers: a pod needs at least one container',
      'zero-length response body',
      expect.stringMatching(/ECONNREFUSED/),
    ]);
  });
});
