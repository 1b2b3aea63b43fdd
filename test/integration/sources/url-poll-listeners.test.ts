// The URL source polls on one signal for the agent's whole life: each poll
// (the sleep, the request, the worker's answer) must take its abort listener
// away again, or node warns after ten ("MaxListenersExceededWarning: 11 abort
// listeners added to [AbortSignal]") and the leak grows with every poll.
import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { abortWaiters } from '../../../src/lifecycle/abort.js';
import { createUrlSource } from '../../../src/sources/http.js';
import { createManifestParser } from '../../../src/sources/parser.js';
import { createUrlFetcher } from '../../../src/sources/url-fetch.js';
import { testLogger } from '../../helpers/test-logger.js';
import { startWarningProbe } from '../../unit/lifecycle/warning-probe.js';

const POLLS = 40;
const BODY = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'i:1' }] } });

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A server that answers every GET with BODY and resolves `reached` at the POLLS-th request. */
async function server(): Promise<{ url: string; reached: Promise<void> }> {
  let count = 0;
  let reach!: () => void;
  const reached = new Promise<void>((r) => (reach = r));
  const srv: Server = createServer((_req, res) => {
    if (++count === POLLS) reach();
    res.writeHead(200, { 'content-type': 'application/json' }).end(BODY);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        srv.closeAllConnections();
        srv.close(() => r());
      }),
  );
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/pods`, reached };
}

describe.each([
  ['in its worker thread', undefined],
  ['inline', null],
] as const)('URL source polling %s on one signal', (_name, workerScript) => {
  it(`${POLLS} polls: no MaxListenersExceededWarning, and at most the sleep's listener on the signal`, async () => {
    const warnings = startWarningProbe();
    cleanups.push(() => warnings.stop());
    const { url, reached } = await server();
    const parser = createManifestParser({ log: testLogger() });
    cleanups.push(() => parser.close());
    const src = createUrlSource({
      url,
      headers: {},
      node: 'n',
      checkFrequencyMs: 1,
      log: testLogger(),
      parser,
      onPods: () => {},
      createFetcher: () => createUrlFetcher({ parser, ...(workerScript === null ? { workerScript: null } : {}) }),
    });
    const ac = new AbortController();
    const running = src.run(ac.signal);
    await reached;
    // Between polls: the sleep waits on the signal through onAbort, behind one node listener.
    expect(getEventListeners(ac.signal, 'abort').length).toBeLessThanOrEqual(1);
    expect(abortWaiters(ac.signal)).toBeLessThanOrEqual(1);
    ac.abort();
    await running;
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    await warnings.settle();
    expect(warnings.abortListenerWarnings()).toEqual([]);
  });
});
