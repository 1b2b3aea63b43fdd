// Lifecycle hooks on a real containerd (host-network busybox pods, effects
// written to a hostPath directory the test reads): postStart runs after the
// start (exec and httpGet), preStop runs before the stop signal and shares
// the grace period with the stop, a pod removed while the agent was down
// still gets its preStop, and a failing postStart kills the container, which
// then restarts.
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { container, field, logLine, pod, podUid, running, staticName, waitFor, waitForLineAfter, type Node } from './helpers/agent-node.js';
import { skipWithoutRuntime, useRuntime } from './helpers/e2e-env.js';

const skip = skipWithoutRuntime('hook');

const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

describe.skipIf(skip)('lifecycle hooks on a real containerd', () => {
  const env = useRuntime();
  let node: Node;
  let dir: string;
  let server: Server | undefined;

  afterEach(async () => {
    await node?.dispose();
    server?.close();
    server = undefined;
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  const hooksDir = (): string => {
    dir = mkdtempSync(join(tmpdir(), 'agent-hooks-'));
    chmodSync(dir, 0o777);
    return dir;
  };
  const volume = (path: string) => ({ volumes: [{ name: 'hooks', hostPath: { path } }] });
  const mount = { volumeMounts: [{ name: 'hooks', mountPath: '/hooks' }] };
  // The main process notes SIGTERM in the same file, so the order of hook and signal shows.
  const noteTerm = ['sh', '-c', "trap 'echo term >> /hooks/log; exit 0' TERM; while true; do sleep 1 & wait; done"];

  it('postStart after the start and preStop before the stop signal (exec and httpGet); the stop gets what the hook left of the grace period', async () => {
    const host = hooksDir();
    const seen: string[] = [];
    server = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.end();
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    node = env.newNode();
    node.writeManifest('hooked.yaml', pod('hooked', [
      container('exec', noteTerm, {
        ...mount,
        lifecycle: {
          postStart: { exec: { command: ['sh', '-c', 'echo poststart >> /hooks/log'] } },
          preStop: { exec: { command: ['sh', '-c', 'echo prestop >> /hooks/log; sleep 3'] } },
        },
      }),
      container('http', undefined, { ports: [{ name: 'hooks', containerPort: port }], lifecycle: { postStart: { httpGet: { port: 'hooks', path: '/poststart' } }, preStop: { httpGet: { port: port, path: '/prestop' } } } }),
    ], { ...volume(host), terminationGracePeriodSeconds: 6 }));
    const agent = await node.start();
    const uid = await podUid(agent, 'hooked');
    await running(env.cri, uid, 'exec', 20_000, agent);
    await waitFor('postStart wrote its line', 10_000, () => read(join(host, 'log')) === 'poststart\n', agent);
    await waitFor('the httpGet postStart reached the server', 10_000, () => seen.includes('/poststart'), agent);

    node.removeManifest('hooked.yaml');
    const kill = await waitForLineAfter(agent, logLine('Killing container with a grace period', { pod: staticName('hooked'), container: 'exec' }), { timeoutMs: 15_000 });
    // The hook took about 3 s of the 6: the stop gets the rest.
    const grace = Number(field(kill, 'gracePeriod'));
    expect(grace).toBeGreaterThanOrEqual(2);
    expect(grace).toBeLessThanOrEqual(3);
    await waitForLineAfter(agent, logLine('Pod torn down', { pod: staticName('hooked') }), { timeoutMs: 20_000 });
    expect(read(join(host, 'log'))).toBe('poststart\nprestop\nterm\n');
    expect(seen).toEqual(['/poststart', '/prestop']);
  }, 90_000);

  it('a pod removed while the agent was down still gets its preStop (from the container record)', async () => {
    const host = hooksDir();
    node = env.newNode();
    node.writeManifest('left.yaml', pod('left', [container('main', noteTerm, { ...mount, lifecycle: { preStop: { exec: { command: ['sh', '-c', 'echo prestop >> /hooks/log'] } } } })], volume(host)));
    const first = await node.start();
    const uid = await podUid(first, 'left');
    await running(env.cri, uid, 'main', 20_000, first);
    first.kill('SIGTERM');
    await first.waitForExit(15_000);
    // Stopped on its own, the agent leaves its pods running; the manifest goes meanwhile.
    node.removeManifest('left.yaml');
    const second = await node.start();
    await waitForLineAfter(second, logLine('Pod torn down', { podUID: uid }), { timeoutMs: 30_000 });
    expect(read(join(host, 'log'))).toBe('prestop\nterm\n');
  }, 90_000);

  it('a failing postStart kills the container (FailedPostStartHook, PostStartHookError) and it restarts', async () => {
    node = env.newNode();
    node.writeManifest('badhook.yaml', pod('badhook', [container('main', undefined, { lifecycle: { postStart: { exec: { command: ['sh', '-c', 'echo no luck; exit 3'] } } } })]));
    const agent = await node.start();
    const uid = await podUid(agent, 'badhook');
    const failed = await waitForLineAfter(agent, logLine('Failed to execute PostStartHook', { pod: staticName('badhook'), container: 'main', reason: 'FailedPostStartHook' }), { timeoutMs: 20_000 });
    expect(field(failed, 'message')).toMatch(/^Exec lifecycle hook \(\["sh","-c","echo no luck; exit 3"\]\) for Container "main" in Pod "default\/badhook-e2e-node\(.+\)" failed - error: no luck/);
    await waitForLineAfter(agent, logLine('Container is waiting', { pod: staticName('badhook'), container: 'main', reason: 'PostStartHookError' }), { timeoutMs: 10_000 });
    // Killed, then started again per restartPolicy Always.
    await waitForLineAfter(agent, logLine('Started container', { pod: staticName('badhook'), container: 'main', restartCount: 1 }), { timeoutMs: 30_000 });
    await waitFor('a restarted instance', 10_000, async () => (await env.cri.listContainers({})).filter((c) => c.labels['io.platform.pod.uid'] === uid).length >= 2, agent);
  }, 90_000);
});
