// The URL source's limits against a real HTTP server on 127.0.0.1: a body is
// read to at most 10 MB (the request is aborted past it), a body identical to
// the last one is not parsed again, and a large body is parsed off the event loop.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { createUrlSource } from '../../../src/sources/http.js';
import { createManifestParser } from '../../../src/sources/parser.js';
import { createUrlFetcher, urlWorkerScript, type UrlFetcher } from '../../../src/sources/url-fetch.js';
import { testLogger, type LogRecord } from '../../helpers/test-logger.js';

const podJson = (name: string, pad = '') => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, padding: pad }, spec: { containers: [{ name: 'c', image: 'i:1' }] } });
const list = (names: string[], pad = '') => JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items: names.map((n) => podJson(n, pad)) });
const MB = 1024 * 1024;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Serves `reply(res)`; records for each request whether the client went away before the response ended. */
async function server(reply: (res: ServerResponse) => void) {
  const requests: Array<{ aborted: boolean }> = [];
  const srv: Server = createServer((req, res) => {
    const r = { aborted: false };
    requests.push(r);
    res.on('close', () => {
      if (!res.writableFinished) r.aborted = true;
    });
    reply(res);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  cleanups.push(async () => {
    srv.closeAllConnections();
    await new Promise<void>((r) => srv.close(() => r()));
  });
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/pods`, requests };
}

function source(url: string) {
  const sets: Pod[][] = [];
  const records: LogRecord[] = [];
  const parser = createManifestParser({ log: testLogger(records) });
  /** The size of every body parsed (in the source's worker thread). */
  const parsed: number[] = [];
  let fetcherClosed = false;
  const createFetcher = (): UrlFetcher => {
    const real = createUrlFetcher({ parser, workerScript: urlWorkerScript() ?? null });
    return {
      fetch: async (job, signal) => {
        const got = await real.fetch(job, signal);
        if ('result' in got) parsed.push(got.bytes);
        return got;
      },
      close: async () => {
        fetcherClosed = true;
        await real.close();
      },
    };
  };
  const src = createUrlSource({ url, headers: {}, node: 'n', checkFrequencyMs: 30, log: testLogger(records), parser, onPods: (p) => void sets.push(p), requestTimeoutMs: 5000, createFetcher });
  const ac = new AbortController();
  const done = src.run(ac.signal);
  cleanups.push(async () => {
    ac.abort();
    await done;
    await parser.close();
  });
  const until = async (pred: () => boolean, what: string, ms = 10_000) => {
    const deadline = Date.now() + ms;
    while (!pred()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(records.map((r) => [r.msg, r.fields]))}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const errors = () => records.filter((r) => r.level === 'error').map((r) => String(r.fields['err']));
  return { sets, records, parsed, ready: src.ready, until, errors, stop: async () => (ac.abort(), await done), fetcherClosed: () => fetcherClosed };
}

describe('URL source limits', () => {
  it('aborts a streamed body past 10 MB, keeps the last good pods, and says why once', async () => {
    let big = false;
    const s = await server((res) => {
      if (!big) return void res.writeHead(200).end(list(['a']));
      // No Content-Length: chunks until the client gives up (bounded: 40 MB at most).
      res.writeHead(200);
      let sent = 0;
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      const more = (): void => {
        while (sent < 40 * MB && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    });
    const src = source(s.url);
    await src.ready;
    expect(src.sets.at(-1)!.map((p) => p.metadata.name)).toEqual(['a-n']);
    big = true;
    await src.until(() => s.requests.filter((r) => r.aborted).length >= 2, 'two aborted requests');
    expect(src.errors()).toEqual([expect.stringMatching(/larger than the 10 MB limit; request aborted/)]);
    expect(src.sets.at(-1)!.map((p) => p.metadata.name)).toEqual(['a-n']);
    expect(Math.max(...src.parsed)).toBeLessThan(MB);
    // The same good body as before the trouble: no parse needed, but the recovery is news.
    big = false;
    await src.until(() => src.records.some((r) => r.msg === 'Manifest URL is readable again'), 'the recovery to be logged');
    expect(src.parsed).toHaveLength(1);
    big = true;
    await src.until(() => src.errors().length === 2, 'the same trouble again to be logged again');
  });

  it('refuses a declared Content-Length past 10 MB without reading the body', async () => {
    const s = await server((res) => {
      res.writeHead(200, { 'content-length': String(11 * MB) });
      res.write(Buffer.alloc(1024, 0x20));
      // The rest never comes: a client that waited for it would time out instead.
    });
    const src = source(s.url);
    await src.ready;
    expect(src.errors()).toEqual([expect.stringMatching(/larger than the 10 MB limit \(Content-Length 11534336\); request aborted/)]);
    expect(src.parsed).toEqual([]);
  });

  it('parses a body identical to the last one only once, and a changed one again', async () => {
    let body = list(['a', 'b']);
    const s = await server((res) => res.writeHead(200).end(body));
    const src = source(s.url);
    await src.ready;
    await src.until(() => s.requests.length >= 5, 'five polls');
    expect(src.parsed).toHaveLength(1);
    expect(src.sets).toHaveLength(1);
    body = list(['a']);
    await src.until(() => src.sets.length === 2, 'the changed body');
    expect(src.sets.at(-1)!.map((p) => p.metadata.name)).toEqual(['a-n']);
    const n = s.requests.length;
    await src.until(() => s.requests.length >= n + 4, 'four more polls');
    expect(src.parsed).toHaveLength(2);
  });

  it('an identical bad body is reported once and not parsed again', async () => {
    const s = await server((res) => res.writeHead(200).end('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"},"spec":{"containers":[]}}'));
    const src = source(s.url);
    await src.ready;
    await src.until(() => s.requests.length >= 4, 'four polls');
    expect(src.parsed).toHaveLength(1);
    expect(src.errors()).toEqual(['spec.containers: a pod needs at least one container']);
  });

  it('stops at once while a poll waits on a server that never answers, and ends its worker', async () => {
    const s = await server(() => undefined);
    const src = source(s.url);
    await src.until(() => s.requests.length === 1, 'the first request');
    const t0 = performance.now();
    await src.stop();
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(src.fetcherClosed()).toBe(true);
  });

  it('finds its worker script (npm run build writes it)', () => {
    expect(urlWorkerScript(), 'dist/sources/url-worker.js is missing: run `npm run build`').toBeDefined();
  });

  it('reads a 9 MB PodList whose padding changes at every poll, through the worker', async () => {
    let n = 0;
    const s = await server((res) => res.writeHead(200).end(list(['a', 'b', 'c'], String(n++ % 10).repeat(3 * MB))));
    const src = source(s.url);
    await src.ready;
    expect(src.sets.at(-1)!.map((p) => p.metadata.name)).toEqual(['a-n', 'b-n', 'c-n']);
    await src.until(() => src.parsed.length >= 3, 'three parses');
    expect(src.errors()).toEqual([]);
    expect(Math.min(...src.parsed)).toBeGreaterThan(9 * 1000 * 1000);
  });
});
