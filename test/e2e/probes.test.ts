// Probes on a real containerd (host-network busybox pods, so a probe's host
// is the node IP 127.0.0.1): a liveness failure restarts the container for
// each handler (exec in the container; httpGet, tcpSocket and grpc against
// servers this test runs on 127.0.0.1 and flips), readiness flipping both
// ways, and a startup probe holding liveness back until it passes.
//
// The restarts and the Ready condition are decided by the pod wing
// (actions.ts, status/compute.ts) from the prober's verdicts; the verdicts
// themselves are read from the agent's "Probe result changed" lines.
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loadHealth } from '../../src/probes/grpc.js';
import { container, field, linesMatching, logLine, pod, podUid, running, staticName, waitForLineAfter, holds, latest, type Node } from './helpers/agent-node.js';
import { skipWithoutRuntime, useRuntime } from './helpers/e2e-env.js';

const skip = skipWithoutRuntime('probe');

/** A verdict line of the prober. */
const verdict = (name: string, probeType: string, result: string) => logLine('Probe result changed', { pod: staticName(name), probeType, result });
const quick = { periodSeconds: 1, timeoutSeconds: 1, failureThreshold: 1 };

/** An HTTP server on 127.0.0.1 answering `code` (the test flips it). */
async function flippingHttp(): Promise<{ server: Server; port: number; set(code: number): void }> {
  let code = 200;
  const server = createServer((_, res) => res.writeHead(code).end(String(code)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port, set: (c) => void (code = c) };
}

/** A gRPC health server on 127.0.0.1 whose overall status the test flips (1 SERVING, 2 NOT_SERVING). */
async function flippingGrpc(): Promise<{ port: number; set(status: number): void; close(): void }> {
  const { request, response, grpc } = await loadHealth();
  let status = 1;
  const server = new grpc.Server();
  const check = {
    path: '/grpc.health.v1.Health/Check',
    requestStream: false,
    responseStream: false,
    requestSerialize: (v: object) => Buffer.from(request.encode(request.fromObject(v)).finish()),
    requestDeserialize: (b: Buffer) => request.toObject(request.decode(b)),
    responseSerialize: (v: object) => Buffer.from(response.encode(response.fromObject(v)).finish()),
    responseDeserialize: (b: Buffer) => response.toObject(response.decode(b)),
  };
  server.addService({ check }, { check: (_call: unknown, cb: (e: null, r: object) => void) => cb(null, { status }) } as never);
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  return { port, set: (s) => void (status = s), close: () => server.forceShutdown() };
}

describe.skipIf(skip)('probes on a real containerd', () => {
  const env = useRuntime();
  let node: Node;
  const closers: Array<() => void> = [];

  afterEach(async () => {
    for (const c of closers.splice(0)) c();
  }, 30_000);

  it('a liveness failure restarts the container: exec, httpGet, tcpSocket and grpc', async () => {
    const http = await flippingHttp();
    closers.push(() => http.server.close());
    const tcp: TcpServer = createTcpServer((s) => s.destroy());
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
    const tcpPort = (tcp.address() as AddressInfo).port;
    closers.push(() => tcp.close());
    const grpc = await flippingGrpc();
    closers.push(grpc.close);

    node = env.newNode();
    node.writeManifest('exec.yaml', pod('live-exec', [container('main', undefined, { livenessProbe: { exec: { command: ['sh', '-c', 'test ! -f /tmp/broken'] }, ...quick } })]));
    node.writeManifest('http.yaml', pod('live-http', [container('main', undefined, { livenessProbe: { httpGet: { port: http.port, path: '/healthz' }, ...quick } })]));
    node.writeManifest('tcp.yaml', pod('live-tcp', [container('main', undefined, { livenessProbe: { tcpSocket: { port: tcpPort }, ...quick } })]));
    node.writeManifest('grpc.yaml', pod('live-grpc', [container('main', undefined, { livenessProbe: { grpc: { port: grpc.port }, ...quick } })]));
    const agent = await node.start();
    const names = ['live-exec', 'live-http', 'live-tcp', 'live-grpc'];
    const uids = await Promise.all(names.map((n) => podUid(agent, n)));
    const first = await Promise.all(uids.map((u) => running(env.cri, u, 'main', 20_000, agent)));
    // Healthy: probed every second and left alone.
    await holds('healthy containers are not restarted', 3_000, async () => (await Promise.all(uids.map((u) => latest(env.cri, u, 'main')))).every((c, i) => c?.id === first[i]!.id), agent, 500);
    expect(linesMatching(agent, logLine('Probe failed'))).toEqual([]);

    // Every handler fails at once.
    await env.cri.execSync(first[0]!.id, ['touch', '/tmp/broken'], 5);
    http.set(500);
    tcp.close();
    grpc.set(2);
    for (const n of names) await waitForLineAfter(agent, verdict(n, 'liveness', 'failure'), { timeoutMs: 10_000 });
    // The pod wing kills the failed instance and starts a new one (restartPolicy Always).
    await Promise.all(uids.map((u, i) => running(env.cri, u, 'main', 30_000, agent, (c) => c.id !== first[i]!.id && c.restartCount >= 1)));
  }, 120_000);

  it('readiness flips both ways: the verdict follows the server, and never restarts the container', async () => {
    const http = await flippingHttp();
    closers.push(() => http.server.close());
    node = env.newNode();
    node.writeManifest('ready.yaml', pod('ready', [container('main', undefined, { readinessProbe: { httpGet: { port: http.port, path: '/ready' }, periodSeconds: 1, failureThreshold: 1 } })]));
    const agent = await node.start();
    const uid = await podUid(agent, 'ready');
    const c = await running(env.cri, uid, 'main', 20_000, agent);
    const readiness = (ready: boolean) => (l: string) => logLine('Pod readiness changed', { pod: staticName('ready') })(l) && field(l, 'ready') === String(ready);
    await waitForLineAfter(agent, verdict('ready', 'readiness', 'success'), { timeoutMs: 10_000 });
    await waitForLineAfter(agent, readiness(true), { timeoutMs: 10_000 });
    const mark1 = agent.lines().length;
    http.set(503);
    await waitForLineAfter(agent, verdict('ready', 'readiness', 'failure'), { after: mark1, timeoutMs: 10_000 });
    // The pod's Ready condition follows: False with ContainersNotReady, then True again.
    const notReady = await waitForLineAfter(agent, readiness(false), { after: mark1, timeoutMs: 10_000 });
    expect(field(notReady, 'reason')).toBe('ContainersNotReady');
    const mark2 = agent.lines().length;
    http.set(200);
    await waitForLineAfter(agent, verdict('ready', 'readiness', 'success'), { after: mark2, timeoutMs: 10_000 });
    await waitForLineAfter(agent, readiness(true), { after: mark2, timeoutMs: 10_000 });
    // Readiness never restarts a container.
    expect((await latest(env.cri, uid, 'main'))?.id).toBe(c.id);
  }, 60_000);

  it('a startup probe holds liveness back until it passes', async () => {
    node = env.newNode();
    node.writeManifest('slow.yaml', pod('slow', [
      container('main', undefined, {
        startupProbe: { exec: { command: ['test', '-f', '/tmp/started'] }, periodSeconds: 1, failureThreshold: 120 },
        livenessProbe: { exec: { command: ['sh', '-c', 'exit 1'] }, ...quick },
      }),
    ]));
    const agent = await node.start();
    const uid = await podUid(agent, 'slow');
    const c = await running(env.cri, uid, 'main', 20_000, agent);
    // Liveness would fail at once; while the startup probe fails it is not run at all.
    await holds('liveness held back while the startup probe fails', 4_000, async () => (await latest(env.cri, uid, 'main'))?.id === c.id, agent, 500);
    expect(linesMatching(agent, (l) => logLine('Probe failed', { pod: staticName('slow'), probeType: 'liveness' })(l))).toEqual([]);
    expect(linesMatching(agent, logLine('Probe failed', { pod: staticName('slow'), probeType: 'startup' })).length).toBeGreaterThan(0);

    await env.cri.execSync(c.id, ['touch', '/tmp/started'], 5);
    await waitForLineAfter(agent, verdict('slow', 'startup', 'success'), { timeoutMs: 10_000 });
    await waitForLineAfter(agent, verdict('slow', 'liveness', 'failure'), { timeoutMs: 10_000 });
    // Then the liveness failure restarts it.
    await running(env.cri, uid, 'main', 30_000, agent, (x) => x.id !== c.id);
  }, 90_000);
});

