// The agent's one-shot modes against the real containerd, on one runtime:
// `--print-plan` (after an agent started two pods and stopped, one manifest is
// edited and one added; the plan shows the running pod in sync, the edited
// one's kill and restart, the missing one's sandbox and start, and the runtime
// is left exactly as it was) and `--runonce` (its exit code: 0 once every pod
// runs — init containers done, readiness probes passed — and 1 when a pod fails).
import { afterEach, describe, expect, it } from 'vitest';
import { runAgentProcess } from '../helpers/agent-process.js';
import { cleanRuntime, container, pod, podContainers, podUid, running, SLEEP_FOREVER, type Node } from './helpers/agent-node.js';
import { skipWithoutRuntime, useRuntime } from './helpers/e2e-env.js';

const skip = skipWithoutRuntime('one-shot mode');

describe.skipIf(skip)('--print-plan and --runonce on a real containerd', () => {
  const env = useRuntime();
  let node: Node;

  afterEach(async () => {
    await cleanRuntime(env.cri);
  }, 60_000);

  it('prints the plan for a pod that is running, one whose spec changed and one that is missing, and changes nothing', async () => {
    node = env.newNode();
    node.writeManifest('steady.yaml', pod('steady', [container('main')]));
    node.writeManifest('edited.yaml', pod('edited', [container('main')]));
    const agent = await node.start();
    const [steady, edited] = [await podUid(agent, 'steady'), await podUid(agent, 'edited')];
    await Promise.all([running(env.cri, steady, 'main', 30_000, agent), running(env.cri, edited, 'main', 30_000, agent)]);
    agent.kill('SIGTERM');
    expect((await agent.waitForExit(20_000)).code).toBe(0);

    node.writeManifest('edited.yaml', pod('edited', [container('main', ['sh', '-c', `echo changed; ${SLEEP_FOREVER[2]}`])]));
    node.writeManifest('missing.yaml', pod('missing', [container('main')]));
    const before = JSON.stringify((await env.cri.listContainers()).map((c) => [c.id, c.state]).sort());
    const run = await runAgentProcess([...(await node.args()), '--print-plan'], { timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    const block = (name: string): string => {
      const start = run.stdout.indexOf(`pod default/${name}-e2e-node `);
      expect(start, `${name} in\n${run.stdout}`).toBeGreaterThanOrEqual(0);
      const next = run.stdout.slice(start + 1).search(/^(pod |Summary)/m);
      return run.stdout.slice(start, start + 1 + next);
    };
    expect(block('steady')).toBe(`pod default/steady-e2e-node (uid ${steady}, from --pod-manifest-path): in sync\n  - nothing to do: 1 container running as declared\n`);
    expect(block('edited')).toBe(
      `pod default/edited-e2e-node (uid ${edited}, from --pod-manifest-path): to change\n  - kill container main (Changed): Container main definition changed, will be restarted\n  - start container main (restart 1)\n`,
    );
    expect(block('missing')).toMatch(/^pod default\/missing-e2e-node \(uid [0-9a-f]+, from --pod-manifest-path\): to start\n {2}- create sandbox \(attempt 0\)\n {2}- start container main\n$/);
    expect(run.stdout).toMatch(/^Summary: 1 to start, 1 to change, 1 in sync\. Nothing was changed\.$/m);
    expect(JSON.stringify((await env.cri.listContainers()).map((c) => [c.id, c.state]).sort())).toBe(before);
  }, 120_000);

  const results = (out: string): Map<string, { result: string; detail: string }> =>
    new Map(
      out
        .split('\n')
        .filter((l) => l.includes('"Run once pod result"'))
        .map((l) => JSON.parse(l) as { pod: string; result: string; detail: string })
        .map((r) => [r.pod, { result: r.result, detail: r.detail }]),
    );

  it('--runonce exits 0 once every pod runs: init containers done first, readiness probes passed', async () => {
    node = env.newNode();
    node.writeManifest('inited.yaml', pod('inited', [container('main', ['sh', '-c', `test -f /shared/setup && sleep 2 && touch /tmp/ready; ${SLEEP_FOREVER[2]}`], {
      readinessProbe: { exec: { command: ['test', '-f', '/tmp/ready'] }, periodSeconds: 1 },
      volumeMounts: [{ name: 'shared', mountPath: '/shared' }],
    })], {
      initContainers: [container('setup', ['sh', '-c', 'touch /shared/setup'], { volumeMounts: [{ name: 'shared', mountPath: '/shared' }] })],
      volumes: [{ name: 'shared', emptyDir: {} }],
    }));
    node.writeManifest('plain.yaml', pod('plain', [container('main')]));
    const run = await runAgentProcess([...(await node.args()), '--logging-format=json', '--runonce'], { timeoutMs: 90_000 });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const r = results(run.stdout + run.stderr);
    expect(r.get('default/inited-e2e-node')).toEqual({ result: 'running', detail: '1 running, ready' });
    expect(r.get('default/plain-e2e-node')).toEqual({ result: 'running', detail: '1 running' });
    // The init container ran to success before the app container started, which found its file.
    const uid = [...(await env.cri.listPodSandbox({}))].find((s) => s.metadata.name === 'inited-e2e-node')!.metadata.uid;
    const cs = await podContainers(env.cri, uid);
    expect(cs.find((c) => c.name === 'setup')).toMatchObject({ state: 'EXITED', exitCode: 0 });
    expect(cs.find((c) => c.name === 'main')).toMatchObject({ state: 'RUNNING' });
  }, 120_000);

  it('--runonce exits 1 when a pod fails, naming it and its exit code', async () => {
    node = env.newNode();
    node.writeManifest('ok.yaml', pod('ok', [container('main')]));
    node.writeManifest('broken.yaml', pod('broken', [container('main', ['sh', '-c', 'exit 3'])], { restartPolicy: 'Never' }));
    const run = await runAgentProcess([...(await node.args()), '--logging-format=json', '--runonce'], { timeoutMs: 90_000 });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const r = results(run.stdout + run.stderr);
    expect(r.get('default/ok-e2e-node')?.result).toBe('running');
    expect(r.get('default/broken-e2e-node')).toEqual({ result: 'failed', detail: 'main exited 3' });
  }, 120_000);
});
