// Many static pods created and deleted at once, through the built agent over
// real gRPC to the fake runtime: node must not print its raw
// MaxListenersExceededWarning (on the landed code it did as soon as more than
// ten pods started or stopped at once: every CRI call, relist wait and sleep in
// flight added its own listener to a signal shared by all of them).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../src/cri/fake-runtime.js';
import { tempDir } from '../helpers/agent-process.js';
import { freePort, killAllDaemons, startAgent, type AgentDaemon } from '../helpers/agent-daemon.js';
import { FakeCriServer } from '../helpers/fake-cri-server.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  await killAllDaemons();
  for (const c of cleanups.splice(0).reverse()) await c();
});

const IMAGE = 'localhost/busybox:latest';
const PODS = 50;

/** Polls `fn` every 50 ms until it holds; bounded, with the agent's output in the error. */
async function until(fn: () => boolean, what: string, agent: AgentDaemon, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > deadline || !agent.running) throw new Error(`${what}: not within ${ms} ms\n${agent.stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('many pods at once', () => {
  it(`${PODS} static pods created and then deleted at once: all run and go, and node prints no listener warning`, async () => {
    const t = tempDir('agent-many-');
    cleanups.push(t.cleanup);
    const runtime = new FakeRuntime({ images: [IMAGE] });
    const cri = await FakeCriServer.start({ runtime });
    cleanups.push(() => cri.dispose());
    const manifests = join(t.dir, 'manifests');
    const files = Array.from({ length: PODS }, (_, i) =>
      t.write(`manifests/p${i}.yaml`, `apiVersion: v1\nkind: Pod\nmetadata:\n  name: p${i}\nspec:\n  hostNetwork: true\n  terminationGracePeriodSeconds: 0\n  containers:\n  - name: main\n    image: ${IMAGE}\n    imagePullPolicy: IfNotPresent\n`),
    );
    const agent = startAgent([
      `--root-dir=${join(t.dir, 'root')}`,
      `--pod-manifest-path=${manifests}`,
      `--container-runtime-endpoint=${cri.endpoint}`,
      '--node-ip=127.0.0.1',
      `--port=${await freePort()}`,
      '--read-only-port=0',
      '--healthz-port=0',
    ]);
    const running = () => runtime.containers().filter((c) => c.state === 'RUNNING').length;
    await until(() => running() === PODS, `${PODS} containers running`, agent);
    for (const f of files) rmSync(f);
    await until(() => runtime.containers().length === 0 && runtime.sandboxes().length === 0, 'all pods torn down', agent);
    expect(agent.kill('SIGTERM')).toBe(true);
    expect(await agent.waitForExit(15_000)).toEqual({ code: 0, signal: null });
    expect(agent.stderr).not.toMatch(/MaxListenersExceededWarning|memory leak detected/);
  });
});
