// /containerLogs/ over HTTP (a loopback harness standing in for the HTTP
// core) on CRI log files written in a temp dir: rotated and gzipped files
// read in order, tail across them, limitBytes, sinceTime, timestamps,
// previous (from the runtime, and from the pod log layout when the runtime
// forgot the container), the error answers, and follow across a rotation.
import { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContainerStatus, RuntimeService } from '../../../src/cri/types.js';
import { logRoutesWith } from '../../../src/server/logs/index.js';
import { testLogger } from '../../helpers/test-logger.js';
import { podView } from '../../unit/server/logs/pod-view.js';
import { get, openStream, serveRoutes, type Harness } from './logs-harness.js';

const root = mkdtempSync(join(tmpdir(), 'agent-logs-'));
const podLogs = join(root, 'pods');
const dir = join(podLogs, 'default_web_uid-web', 'app');
const live = join(dir, '2.log');
const ts = (sec: number, ns = 0): string => `2024-01-02T03:04:${String(sec).padStart(2, '0')}.${String(ns).padStart(9, '0')}Z`;
const rec = (sec: number, text: string, tag: 'F' | 'P' = 'F', stream = 'stdout'): string => `${ts(sec)} ${stream} ${tag} ${text}\n`;

/** What the runtime says of each container; tests flip states. */
const containers = new Map<string, { logPath: string; state: ContainerStatus['state'] }>();
const runtime = {
  containerStatus: async (id: string) => {
    const c = containers.get(id);
    if (!c) throw new Error(`container ${id} not found`);
    return { id, logPath: c.logPath, state: c.state } as unknown as ContainerStatus;
  },
} as unknown as RuntimeService;

const pods = [
  podView('web', [
    { name: 'app', state: { running: {} }, containerID: 'containerd://c2', restartCount: 2, lastState: { terminated: { exitCode: 1, containerID: 'containerd://c1' } } },
    { name: 'gone', state: { running: {} }, containerID: 'containerd://g1', restartCount: 1, lastState: { terminated: { exitCode: 1, containerID: 'containerd://g0' } } },
    { name: 'follow', state: { running: {} }, containerID: 'containerd://f1' },
    { name: 'nofile', state: { running: {} }, containerID: 'containerd://n1' },
  ]),
];

let h: Harness;
beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, '2.log.20240102-030400.gz'), gzipSync(rec(1, 'one') + rec(2, 'tw', 'P') + rec(2, 'o')));
  writeFileSync(join(dir, '2.log.20240102-030410'), rec(3, 'three', 'F', 'stderr') + rec(4, 'four'));
  writeFileSync(live, rec(5, 'five') + 'not a cri line\n' + rec(6, 'six'));
  writeFileSync(join(dir, '1.log'), rec(0, 'previous run'));
  containers.set('c2', { logPath: live, state: 'RUNNING' });
  containers.set('c1', { logPath: join(dir, '1.log'), state: 'EXITED' });
  // g0 is unknown to the runtime: its file is found by the pod log layout (<attempt>.log).
  mkdirSync(join(podLogs, 'default_web_uid-web', 'gone'), { recursive: true });
  writeFileSync(join(podLogs, 'default_web_uid-web', 'gone', '0.log'), rec(0, 'collected but kept'));
  containers.set('g1', { logPath: join(podLogs, 'default_web_uid-web', 'gone', '1.log'), state: 'RUNNING' });
  containers.set('n1', { logPath: join(root, 'missing', '0.log'), state: 'RUNNING' });
  const routes = logRoutesWith({ status: { all: () => pods }, runtime, podLogsDir: podLogs, nodeLogDir: root, log: testLogger(), stateCheckMs: 50, pollMs: 50, now: () => Date.parse(ts(4)) });
  h = await serveRoutes(routes);
});
afterAll(async () => {
  await h.close();
  rmSync(root, { recursive: true, force: true });
});

const logs = (c: string, q = '') => get(h.port, `/containerLogs/default/web/${c}${q}`);

describe('/containerLogs/ reads', () => {
  it('reads the gzipped, rotated and live files in order, partial lines joined, bad lines skipped', async () => {
    const r = await logs('app');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(r.body).toBe('one\ntwo\nthree\nfour\nfive\nsix\n');
  });

  it.each([
    ['?tailLines=0', ''],
    ['?tailLines=1', 'six\n'],
    ['?tailLines=3', 'four\nfive\nsix\n'],
    ['?tailLines=5', 'two\nthree\nfour\nfive\nsix\n'],
    ['?tail=100', 'one\ntwo\nthree\nfour\nfive\nsix\n'],
    ['?limitBytes=6', 'one\ntw'],
    ['?tailLines=2&limitBytes=7', 'five\nsi'],
    ['?sinceTime=2024-01-02T03:04:04Z', 'four\nfive\nsix\n'],
    ['?sinceSeconds=1', 'three\nfour\nfive\nsix\n'],
    ['?tailLines=4&sinceTime=2024-01-02T03:04:05Z', 'five\nsix\n'],
    ['?timestamps=true&tailLines=2', `${ts(5)} five\n${ts(6)} six\n`],
    ['?previous=true', 'previous run\n'],
  ])('%s', async (q, want) => {
    const r = await logs('app', q);
    expect(r.status).toBe(200);
    expect(r.body).toBe(want);
  });

  it('finds a previous instance the runtime no longer knows in the pod log layout', async () => {
    expect((await logs('gone', '?previous=1')).body).toBe('collected but kept\n');
  });

  it.each([
    ['/containerLogs/default/web/app?tailLines=abc', 400, 'tailLines'],
    ['/containerLogs/default/web/app?sinceTime=never', 400, 'sinceTime'],
    ['/containerLogs/default/web/app?tailLines=-1', 422, 'tailLines'],
    ['/containerLogs/default/web/app?limitBytes=0', 422, 'limitBytes'],
    ['/containerLogs/default/web/app?sinceSeconds=5&sinceTime=2024-01-02T03:04:04Z', 422, 'sinceTime or sinceSeconds'],
    ['/containerLogs/default/nope/app', 404, 'pod "default/nope" does not exist'],
    ['/containerLogs/default/web/ghost', 404, 'container "ghost" not found in pod "default/web"'],
    ['/containerLogs/default/web/follow?previous=true', 400, 'previous terminated container "follow"'],
    ['/containerLogs/default/web/nofile', 400, 'failed to read the log of container "nofile"'],
    ['/containerLogs/default/web', 404, '404 page not found'],
    ['/containerLogs/default/web/app/extra', 404, '404 page not found'],
    ['/containerLogs/default//app', 400, 'Missing podID.'],
  ])('%s → %i', async (path, status, text) => {
    const r = await get(h.port, path);
    expect(r.status).toBe(status);
    expect(r.body).toContain(text);
  });
});

describe('/containerLogs/ follow', () => {
  const fdir = join(podLogs, 'default_web_uid-web', 'follow');
  const flive = join(fdir, '0.log');

  it('streams appended lines, follows a rotation without losing or repeating a line, and ends when the container stops', async () => {
    mkdirSync(fdir, { recursive: true });
    writeFileSync(flive, rec(1, 'a1'));
    containers.set('f1', { logPath: flive, state: 'RUNNING' });
    const s = await openStream(h.port, '/containerLogs/default/web/follow?follow=true');
    expect(s.status).toBe(200);
    await s.until((t) => t === 'a1\n', 5_000);
    appendFileSync(flive, rec(2, 'a2') + rec(3, 'a3-', 'P'));
    await s.until((t) => t === 'a1\na2\n', 5_000);
    appendFileSync(flive, rec(3, 'joined'));
    await s.until((t) => t.endsWith('a3-joined\n'), 5_000);
    // The rotation manager's moves: lines written to the old file before the rename, rename, the runtime reopens.
    appendFileSync(flive, rec(4, 'last in old'));
    renameSync(flive, `${flive}.20240102-030404`);
    appendFileSync(`${flive}.20240102-030404`, rec(4, 'written before the reopen'));
    writeFileSync(flive, rec(5, 'first in new'));
    await s.until((t) => t.endsWith('first in new\n'), 5_000);
    appendFileSync(flive, rec(6, 'b2'));
    await s.until((t) => t.endsWith('b2\n'), 5_000);
    containers.set('f1', { logPath: flive, state: 'EXITED' });
    const all = await s.ended;
    expect(all).toBe('a1\na2\na3-joined\nlast in old\nwritten before the reopen\nfirst in new\nb2\n');
  });

  it('with tailLines starts at the end and stops at limitBytes', async () => {
    containers.set('f1', { logPath: flive, state: 'RUNNING' });
    const s = await openStream(h.port, '/containerLogs/default/web/follow?follow&tailLines=1&limitBytes=10');
    await s.until((t) => t === 'b2\n', 5_000);
    appendFileSync(flive, rec(7, 'more than enough'));
    expect(await s.ended).toBe('b2\nmore th');
  });

  it('stops reading when the client goes away', async () => {
    containers.set('f1', { logPath: flive, state: 'RUNNING' });
    const s = await openStream(h.port, '/containerLogs/default/web/follow?follow=1&tailLines=1');
    await s.until((t) => t.length > 0, 5_000);
    s.close();
    await s.ended;
    // The leak check after this file fails it if the watcher or a timer of the follow loop were left behind.
  });
});

describe('/containerLogs/ HEAD', () => {
  it('answers with the headers only, even for follow', async () => {
    const r = await get(h.port, '/containerLogs/default/web/app?follow=true', 'HEAD');
    expect(r.status).toBe(200);
    expect(r.body).toBe('');
  });
});
