// The URL pod source on a real containerd: --manifest-url polled every
// --http-check-frequency with the --manifest-url-header headers; pods it
// serves start; when the server goes away the last pods it gave keep running;
// when it comes back with a changed list the agent follows it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CriRuntime } from '../../src/cri/grpc-client.js';
import { freePort } from '../helpers/agent-daemon.js';
import {
  NODE,
  container,
  createNode,
  criClient,
  field,
  holds,
  linesMatching,
  logLine,
  mark,
  pod,
  podContainers,
  podSandboxes,
  podUid,
  phase,
  running,
  staticName,
  waitFor,
  waitForLineAfter,
  type Node,
} from './helpers/agent-node.js';
import { localRuntimeUnavailable, startLocalRuntime, type LocalRuntime } from './helpers/local-runtime.js';

const unavailable = localRuntimeUnavailable();
const skip = unavailable !== undefined && !process.env['CI'];
if (skip) console.warn(`pod source e2e tests skipped: ${unavailable}`);

interface Seen {
  token: string | undefined;
  /** Values of the repeated X-Multi header, in the order received. */
  multi: string[];
}

/** A manifest server on 127.0.0.1:port that serves `body()` only with X-Token: abc (a number: that status, no body). */
function serveManifests(port: number, body: () => string | number, seen: Seen[]): Promise<Server> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const multi: string[] = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'x-multi') multi.push(req.rawHeaders[i + 1]!);
    const token = req.headers['x-token'];
    seen.push({ token: typeof token === 'string' ? token : undefined, multi });
    if (req.url !== '/pods' || token !== 'abc') {
      res.writeHead(token === 'abc' ? 404 : 401).end();
      return;
    }
    const b = body();
    if (typeof b === 'number') res.writeHead(b).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end(b);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

function stopServer(server: Server | undefined): Promise<void> {
  if (!server?.listening) return Promise.resolve();
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

const podList = (...pods: Record<string, unknown>[]): string => JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items: pods });

describe.skipIf(skip)('URL pod source on a real containerd', () => {
  let rt: LocalRuntime;
  let cri: CriRuntime;
  let node: Node;
  let server: Server | undefined;

  beforeAll(async () => {
    rt = await startLocalRuntime();
    cri = await criClient(rt);
  }, 90_000);

  afterAll(async () => {
    cri?.close();
    await rt?.stop();
  }, 90_000);

  afterEach(async () => {
    await stopServer(server);
    await node?.dispose();
  }, 30_000);

  it('runs the pods a manifest URL serves (with its headers), keeps them while it is unreachable, follows a changed list', async () => {
    node = createNode(rt, cri);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/pods`;
    const seen: Seen[] = [];
    let body = podList(pod('alpha', [container('main')]), pod('gamma', [container('main')]));
    server = await serveManifests(port, () => body, seen);

    const agent = await node.start(
      [`--manifest-url=${url}`, '--manifest-url-header=X-Token:abc', '--manifest-url-header=X-Multi:one,X-Multi:two', '--http-check-frequency=1s'],
      { manifestPath: false },
    );
    const alphaUid = await podUid(agent, 'alpha');
    const gammaUid = await podUid(agent, 'gamma');
    expect(field(agent.lines().find(logLine('Pod added', { pod: staticName('alpha') }))!, 'source')).toBe('http');
    await phase(agent, 'alpha', 'Running', { timeoutMs: 15_000 });
    await phase(agent, 'gamma', 'Running', { timeoutMs: 15_000 });
    const alpha = await running(cri, alphaUid, 'main', 5_000, agent);
    await running(cri, gammaUid, 'main', 5_000, agent);
    expect(alpha.labels['io.platform.pod.name']).toBe(`alpha-${NODE}`);
    // Every request carried the headers, the repeated one in the order given.
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((s) => s.token === 'abc')).toBe(true);
    expect(seen.every((s) => s.multi.join(',') === 'one,two')).toBe(true);
    // Polled every second.
    const polls = seen.length;
    await waitFor('two more polls', 5_000, () => seen.length >= polls + 2, agent);

    // The server goes away: logged once, the pods keep running.
    const down = mark(agent);
    await stopServer(server);
    const err = await waitForLineAfter(agent, logLine('Could not read pods from the manifest URL; keeping the last pods it gave', { url }), { after: down, timeoutMs: 10_000 });
    expect(field(err, 'err')).toMatch(/ECONNREFUSED/);
    await holds('pods keep running while the URL is unreachable', 3_000, async () => {
      const a = await podContainers(cri, alphaUid);
      const g = await podContainers(cri, gammaUid);
      return a.length === 1 && a[0]!.id === alpha.id && a[0]!.state === 'RUNNING' && g.length === 1 && g[0]!.state === 'RUNNING';
    }, agent);
    expect(linesMatching(agent, logLine('Could not read pods from the manifest URL; keeping the last pods it gave'), down)).toHaveLength(1);
    expect(linesMatching(agent, /Pod (added|changed|removed)|Tearing down/, down)).toEqual([]);

    // Back with a changed list: gamma gone, beta new, alpha unchanged.
    const up = mark(agent);
    body = podList(pod('alpha', [container('main')]), pod('beta', [container('main')]));
    server = await serveManifests(port, () => body, seen);
    await waitForLineAfter(agent, logLine('Manifest URL is readable again', { url }), { after: up, timeoutMs: 10_000 });
    const betaUid = await podUid(agent, 'beta', { after: up });
    await phase(agent, 'beta', 'Running', { after: up, timeoutMs: 15_000 });
    await running(cri, betaUid, 'main', 5_000, agent);
    await waitForLineAfter(agent, logLine('Pod torn down', { pod: staticName('gamma'), podUID: gammaUid }), { after: up, timeoutMs: 15_000 });
    expect(await podContainers(cri, gammaUid)).toEqual([]);
    expect(await podSandboxes(cri, gammaUid)).toEqual([]);
    const alphaAfter = await running(cri, alphaUid, 'main', 5_000, agent);
    expect(alphaAfter.id).toBe(alpha.id);
    expect(alphaAfter.startedAt).toBe(alpha.startedAt);
    expect(linesMatching(agent, logLine('Pod changed', { pod: staticName('alpha') }))).toEqual([]);
  }, 60_000);

  it('keeps the last pods when the URL answers with an error status or a bad body', async () => {
    node = createNode(rt, cri);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/pods`;
    const seen: Seen[] = [];
    let body: string | number = JSON.stringify(pod('solo', [container('main')]));
    server = await serveManifests(port, () => body, seen);
    const agent = await node.start([`--manifest-url=${url}`, '--manifest-url-header=X-Token:abc', '--http-check-frequency=1s'], { manifestPath: false });
    const uid = await podUid(agent, 'solo');
    const solo = await running(cri, uid, 'main', 15_000, agent);

    const errors = (after: number) => linesMatching(agent, logLine('Could not read pods from the manifest URL; keeping the last pods it gave', { url }), after).map((l) => field(l, 'err'));
    const m = mark(agent);
    body = 503;
    await waitFor('error status reported', 10_000, () => errors(m).length === 1, agent);
    expect(errors(m)).toEqual(['HTTP status 503']);
    body = podList({ metadata: { name: 'broken' }, spec: { containers: [{ name: 'main' }] } });
    await waitFor('bad body reported', 10_000, () => errors(m).length === 2, agent);
    expect(errors(m)[1]).toMatch(/items\[0\]\.spec\.containers\[0\]\.image/);
    await holds('solo keeps running, each problem reported once', 2_500, async () => {
      const c = await podContainers(cri, uid);
      return c.length === 1 && c[0]!.id === solo.id && c[0]!.state === 'RUNNING' && errors(m).length === 2;
    }, agent);
    expect(linesMatching(agent, /Pod (added|changed|removed)|Tearing down/, m)).toEqual([]);
    // Good again: recovery is logged and the same pod stays.
    body = JSON.stringify(pod('solo', [container('main')]));
    await waitForLineAfter(agent, logLine('Manifest URL is readable again', { url }), { after: m, timeoutMs: 10_000 });
    expect((await running(cri, uid, 'main', 5_000, agent)).id).toBe(solo.id);
  }, 45_000);
});
