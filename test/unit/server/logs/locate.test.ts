import { describe, expect, it } from 'vitest';
import { locateContainer } from '../../../../src/server/logs/locate.js';
import { podView } from './pod-view.js';

const q = (container: string, previous = false, pod = 'web') => ({ namespace: 'default', pod, container, previous });
const running = { running: { startedAt: '2024-01-01T00:00:00Z' } };
const term = (id?: string) => ({ terminated: { exitCode: 1, ...(id !== undefined ? { containerID: id } : {}) } });

describe('locateContainer', () => {
  const pods = [
    podView('web', [
      { name: 'app', state: running, containerID: 'containerd://c2', restartCount: 2, lastState: term('containerd://c1') },
      { name: 'fresh', state: running, containerID: 'containerd://f0' },
      { name: 'done', state: term('containerd://d0') },
      { name: 'respawn', state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: term('containerd://r0'), restartCount: 1 },
      { name: 'pull', state: { waiting: { reason: 'ImagePullBackOff' } } },
      { name: 'new', state: { waiting: { reason: 'ContainerCreating' } } },
      { name: 'blank', state: {} },
    ], { containers: ['app', 'fresh', 'done', 'respawn', 'pull', 'new', 'blank', 'nostatus'], init: ['setup'] }),
  ];

  it.each([
    [q('app'), { containerId: 'c2', attempt: 2 }],
    [q('app', true), { containerId: 'c1', attempt: 1 }],
    [q('fresh'), { containerId: 'f0', attempt: 0 }],
    [q('done'), { containerId: 'd0', attempt: 0 }],
    [q('respawn'), { containerId: 'r0', attempt: 0 }],
    [q('respawn', true), { containerId: 'r0', attempt: 0 }],
  ])('%j', (query, want) => {
    expect(locateContainer(pods, query)).toEqual({ kind: 'found', podDir: 'default_web_uid-web', ...want });
  });

  it.each([
    [q('app', false, 'nope'), 404, 'pod "default/nope" does not exist'],
    [{ ...q('app'), namespace: 'other' }, 404, 'pod "other/web" does not exist'],
    [q('ghost'), 404, 'container "ghost" not found in pod "default/web"'],
    [q('nostatus'), 400, 'container "nostatus" in pod "default/web" is not available'],
    [q('setup'), 400, 'container "setup" in pod "default/web" is not available'],
    [q('fresh', true), 400, 'previous terminated container "fresh" in pod "default/web" not found'],
    [q('pull'), 400, 'is waiting to start: trying and failing to pull image'],
    [q('new'), 400, 'is waiting to start: ContainerCreating'],
    [q('blank'), 400, 'is waiting to start - no logs yet'],
  ])('%j → %i', (query, status, message) => {
    const r = locateContainer(pods, query);
    expect(r.kind).toBe('error');
    if (r.kind !== 'error') return;
    expect(r.status).toBe(status);
    expect(r.message).toContain(message);
  });
});
