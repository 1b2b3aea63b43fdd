import { describe, expect, test } from 'vitest';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import { createAgentMetrics, instrumentRuntime, operationType } from '../../../src/metrics/index.js';

describe('operationType', () => {
  test.each([
    ['version', 'version'],
    ['runPodSandbox', 'run_podsandbox'],
    ['podSandboxStatus', 'podsandbox_status'],
    ['listPodSandbox', 'list_podsandbox'],
    ['listPodSandboxStats', 'list_podsandbox_stats'],
    ['createContainer', 'create_container'],
    ['execSync', 'exec_sync'],
    ['portForward', 'port_forward'],
    ['reopenContainerLog', 'reopen_container_log'],
    ['imageFsInfo', 'image_fs_info'],
    ['pullImage', 'pull_image'],
  ])('%s → %s', (method, want) => expect(operationType(method)).toBe(want));
});

describe('instrumentRuntime', () => {
  test('times each call and counts failures; results and errors pass through', async () => {
    const calls: Array<[string, boolean]> = [];
    const m = { runtimeOperation: (op: string, s: number, failed: boolean) => (expect(s).toBeGreaterThanOrEqual(0), calls.push([op, failed])) };
    const fake = new FakeRuntime();
    const rt = instrumentRuntime(fake, m);
    expect((await rt.version()).runtimeName).toBe((await fake.version()).runtimeName);
    expect(await rt.listPodSandbox()).toEqual([]);
    await expect(rt.containerStatus('nope')).rejects.toThrow();
    expect(calls).toEqual([
      ['version', false],
      ['list_podsandbox', false],
      ['container_status', true],
    ]);
  });

  test('a method that throws synchronously is counted and rethrown; non-function properties are untouched', () => {
    const calls: Array<[string, boolean]> = [];
    const target = { n: 4, boom(): never { throw new Error('sync boom'); } };
    const rt = instrumentRuntime(target as never, { runtimeOperation: (op, _s, failed) => calls.push([op, failed]) }) as unknown as typeof target;
    expect(rt.n).toBe(4);
    expect(() => rt.boom()).toThrow('sync boom');
    expect(calls).toEqual([['boom', true]]);
  });

  test('feeds the registry', async () => {
    const m = createAgentMetrics({ processMetrics: false });
    const rt = instrumentRuntime(new FakeRuntime(), m);
    await rt.status();
    await rt.status();
    expect(await m.registry.metrics()).toContain('agent_runtime_operations_duration_seconds_count{operation_type="status"} 2');
  });
});
