// Every CRI call of a busy node runs under a signal that lives as long as the
// agent (a component's): the calls in flight at once and the calls made one
// after another must not pile abort listeners on it, or node warns after ten
// ("MaxListenersExceededWarning: 11 abort listeners added to [AbortSignal]").
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { createCriRuntime, type CriRuntime } from '../../../src/cri/grpc-client.js';
import { abortWaiters } from '../../../src/lifecycle/abort.js';
import { FakeCriServer } from '../../helpers/fake-cri-server.js';
import { recordingLog } from '../../unit/cri/cri-fixtures.js';
import { startWarningProbe } from '../../unit/lifecycle/warning-probe.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function client(): Promise<CriRuntime> {
  const srv = await FakeCriServer.start();
  cleanups.push(() => srv.dispose());
  const cri = await createCriRuntime({ runtimeEndpoint: srv.endpoint, requestTimeoutMs: 5_000, connectTimeoutMs: 5_000, log: recordingLog() });
  cleanups.push(() => cri.close());
  return cri;
}

const listeners = (s: AbortSignal): number => getEventListeners(s, 'abort').length;

describe('CRI calls on one long-lived signal', () => {
  it('50 calls at once and 50 in a row: one listener at most while in flight, none after, no warning', async () => {
    const warnings = startWarningProbe();
    cleanups.push(() => warnings.stop());
    const cri = await client();
    const ac = new AbortController();

    const inFlight = Array.from({ length: 50 }, () => cri.listContainers(undefined, ac.signal));
    expect(listeners(ac.signal)).toBe(1);
    expect(abortWaiters(ac.signal)).toBe(50);
    await Promise.all(inFlight);
    expect(listeners(ac.signal)).toBe(0);

    for (let i = 0; i < 50; i++) await cri.version(ac.signal);
    expect(listeners(ac.signal)).toBe(0);
    expect(abortWaiters(ac.signal)).toBe(0);

    await warnings.settle();
    expect(warnings.abortListenerWarnings()).toEqual([]);
  });
});
