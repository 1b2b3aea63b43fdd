// The start-up wait for a runtime that is not there (no socket at all), as an
// operator meets it: what the messages say, and that stopping the wait leaves
// nothing behind that would keep the process alive.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCriRuntime } from '../../../src/cri/grpc-client.js';
import { startLeakProbe } from '../../unit/lifecycle/leak-probe.js';
import { recordingLog } from '../../unit/cri/cri-fixtures.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** An endpoint whose socket does not exist. */
function absentSocket(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-cri-absent-'));
  dirs.push(dir);
  return `unix://${join(dir, 'runtime.sock')}`;
}

/** A log that resolves `waiting` when the handshake announces its wait. */
function announcingLog() {
  const log = recordingLog();
  let announce!: () => void;
  const waiting = new Promise<void>((r) => (announce = r));
  const info = log.info;
  log.info = (msg, fields) => {
    info(msg, fields);
    if (msg === 'Waiting for the container runtime') announce();
  };
  return { log, waiting };
}

describe('the start-up wait for an absent runtime socket', () => {
  it('an abort during the wait leaves no timer behind (grpc-js kept its 60 s deadline timer, which held the process)', async () => {
    // grpc-js is loaded before the probe starts: its module-level state is not a leak of this test.
    await import('@grpc/grpc-js');
    const probe = startLeakProbe();
    const ac = new AbortController();
    const reason = new Error('shutting down');
    const { log, waiting } = announcingLog();
    const creating = createCriRuntime({ runtimeEndpoint: absentSocket(), requestTimeoutMs: 1_000, connectTimeoutMs: 60_000, log, signal: ac.signal });
    await waiting;
    ac.abort(reason);
    await expect(creating).rejects.toBe(reason);
    // Callbacks grpc-js queued before the close (state watchers run from setImmediate) run now.
    for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
    // grpc-js's own unref'd reconnect back-off (100 ms) may still be pending: it never holds the process.
    probe.assertNoRefTimers();
  });

  it('the wait and the give-up name the missing socket, with no empty "Resolution note:" trailer', async () => {
    const endpoint = absentSocket();
    const log = recordingLog();
    const err = await createCriRuntime({ runtimeEndpoint: endpoint, requestTimeoutMs: 1_000, connectTimeoutMs: 300, log }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'ESTARTUP' });
    const message = (err as Error).message;
    expect(message).not.toMatch(/Resolution note/);
    expect(message).toContain(`cannot use the container runtime at ${endpoint} (gave up after 0.3s)`);
    expect(message).toMatch(/ENOENT/);
    expect(message).toMatch(new RegExp(`; no socket exists at ${endpoint.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: is the container runtime running`));
    const wait = log.records.find((r) => r.msg === 'Waiting for the container runtime');
    expect(String(wait?.fields?.['err'])).not.toMatch(/Resolution note/);
    expect(wait?.fields?.['hint']).toMatch(/^no socket exists at /);
  });
});
