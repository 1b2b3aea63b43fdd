// A --manifest-url with a password in it (http://user:password@host/...):
// the URL source's log lines name the URL with its userinfo redacted, as
// --print-config and the start-up log do (config/redact.ts); the password
// never reaches the log. Against the fake CRI runtime over real gRPC; the URL
// points at a loopback port nothing listens on, so every poll fails and is logged.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/agent-process.js';
import { freePort, killAllDaemons, startAgent } from '../helpers/agent-daemon.js';
import { FakeRuntime } from '../../src/cri/fake-runtime.js';
import { FakeCriServer } from '../helpers/fake-cri-server.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  await killAllDaemons();
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('manifest URL credentials', () => {
  it('are redacted in the URL source log lines', async () => {
    const cri = await FakeCriServer.start({ runtime: new FakeRuntime() });
    cleanups.push(() => cri.dispose());
    const t = tempDir();
    cleanups.push(() => t.cleanup());
    const closed = await freePort();
    const agent = startAgent([
      `--manifest-url=http://bench:s3cret-pw@127.0.0.1:${closed}/pods`,
      '--http-check-frequency=1s',
      `--container-runtime-endpoint=${cri.endpoint}`,
      `--root-dir=${join(t.dir, 'root')}`,
      '--healthz-port=0',
      '--read-only-port=0',
      '--hostname-override=node-a',
      '--node-ip=127.0.0.1',
      '--logging-format=json',
      '-v=2',
    ]);
    // Errors go to stderr in the JSON format too.
    const line = await agent.waitForLine(/Could not read pods from the manifest URL/, { timeoutMs: 20_000 });
    expect(JSON.parse(line)).toMatchObject({ url: `http://<redacted>@127.0.0.1:${closed}/pods` });
    const all = agent.lines('stdout').concat(agent.lines('stderr'));
    expect(all.filter((l) => l.includes('s3cret-pw'))).toEqual([]);
  });
});
