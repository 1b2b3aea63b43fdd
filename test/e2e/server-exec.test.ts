// The node's streaming routes on a real containerd: exec into a busybox
// container with a WebSocket client (v4.channel.k8s.io) and with an SPDY/3.1
// client (as kubectl), each getting the command's output and exit code, and a
// port-forward (both clients) to busybox httpd in a host-network pod. The
// routes are served by the test's own small server until the HTTP core
// serves them; the agent runs the pods.
import { WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { streamingRoutes } from '../../src/server/streaming/index.js';
import type { PodWithStatus } from '../../src/status/store.js';
import { freePort } from '../helpers/net.js';
import { spdyUpgrade } from '../helpers/spdy-client.js';
import { serveRoutes, type Harness } from '../helpers/streaming-harness.js';
import { container, NODE, pod, podUid, running } from './helpers/agent-node.js';
import { skipWithoutRuntime, useRuntime } from './helpers/e2e-env.js';

const skip = skipWithoutRuntime('streaming');
const quiet = { info: (): void => undefined, error: (): void => undefined };

/** The exit code a v4 error stream's Status carries (0 when it carries none: success). */
function exitCode(errorStream: Buffer): number {
  if (errorStream.length === 0) return 0;
  const st = JSON.parse(errorStream.toString('utf8')) as { status?: string; details?: { causes?: Array<{ reason?: string; message?: string }> } };
  if (st.status === 'Success') return 0;
  const c = st.details?.causes?.find((x) => x.reason === 'ExitCode');
  return c?.message === undefined ? -1 : Number(c.message);
}

interface WsResult {
  protocol: string;
  channels: Map<number, Buffer>;
}

/** Runs a WebSocket stream to the end: every channel's bytes, by channel number. `onOpen` may send. */
function wsRun(url: string, protocol: string, until?: (ch: Map<number, Buffer>) => boolean, onOpen?: (ws: WebSocket) => void): Promise<WsResult> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, [protocol]);
    const channels = new Map<number, Buffer>();
    ws.on('open', () => onOpen?.(ws));
    ws.on('message', (data: Buffer) => {
      const ch = data[0];
      if (ch === undefined) return;
      channels.set(ch, Buffer.concat([channels.get(ch) ?? Buffer.alloc(0), data.subarray(1)]));
      if (until?.(channels)) ws.close();
    });
    ws.on('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode ?? 0}`)));
    ws.on('error', reject);
    ws.on('close', () => resolve({ protocol: ws.protocol, channels }));
  });
}

describe.skipIf(skip)('exec, attach and port-forward on a real containerd', () => {
  const env = useRuntime();
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('execs with WebSocket and SPDY clients, and forwards a port with both', async () => {
    const httpPort = await freePort();
    const node = env.newNode();
    const serve = `mkdir -p /tmp/www && echo pf-hello > /tmp/www/index.html && exec httpd -f -p 127.0.0.1:${httpPort} -h /tmp/www`;
    node.writeManifest('shell.yaml', pod('shell', [container('main'), container('web', ['sh', '-c', serve])]));
    const agent = await node.start();
    const uid = await podUid(agent, 'shell');
    await running(env.cri, uid, 'main', 30_000, agent);
    await running(env.cri, uid, 'web', 30_000, agent);
    const name = `shell-${NODE}`;
    const entry = { pod: { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid }, spec: {} }, status: { phase: 'Running' } } as unknown as PodWithStatus;
    harness = await serveRoutes(streamingRoutes({ status: { all: () => [entry] }, runtime: env.cri, streamingIdleTimeoutMs: 60_000, log: quiet }));
    const cmd = ['sh', '-c', 'echo out-line; echo err-line >&2; exit 3'].map((c) => `command=${encodeURIComponent(c)}`).join('&');
    const execPath = `/exec/default/${name}/main?${cmd}&output=1&error=1`;

    // WebSocket, v4.channel.k8s.io: 1 stdout, 2 stderr, 3 the error stream (the exit Status).
    const ws = await wsRun(`ws://127.0.0.1:${harness.port}${execPath}`, 'v4.channel.k8s.io');
    expect(ws.protocol).toBe('v4.channel.k8s.io');
    expect(ws.channels.get(1)?.toString()).toBe('out-line\n');
    expect(ws.channels.get(2)?.toString()).toBe('err-line\n');
    expect(exitCode(ws.channels.get(3) ?? Buffer.alloc(0))).toBe(3);

    // SPDY/3.1 as kubectl: one stream per channel, named by its streamtype header.
    const up = await spdyUpgrade(harness.port, execPath, ['v4.channel.k8s.io', 'v3.channel.k8s.io']);
    expect(up.status).toBe(101);
    expect(up.protocol).toBe('v4.channel.k8s.io');
    const conn = up.conn!;
    const errId = await conn.open({ streamtype: 'error' });
    const outId = await conn.open({ streamtype: 'stdout' });
    const errOutId = await conn.open({ streamtype: 'stderr' });
    await conn.closed;
    expect(conn.data(outId).toString()).toBe('out-line\n');
    expect(conn.data(errOutId).toString()).toBe('err-line\n');
    expect(exitCode(conn.data(errId))).toBe(3);

    // A successful command: no Status on the error stream (v4), exit 0.
    const ok = await spdyUpgrade(harness.port, `/exec/default/${name}/main?command=echo&command=fine&output=1`, ['v4.channel.k8s.io']);
    const okErr = await ok.conn!.open({ streamtype: 'error' });
    const okOut = await ok.conn!.open({ streamtype: 'stdout' });
    await ok.conn!.closed;
    expect(ok.conn!.data(okOut).toString()).toBe('fine\n');
    expect(exitCode(ok.conn!.data(okErr))).toBe(0);

    // Port-forward over WebSocket: each channel starts with the port (little-endian); channel 0 carries the bytes.
    const request = Buffer.from('GET / HTTP/1.0\r\n\r\n');
    const pf = await wsRun(
      `ws://127.0.0.1:${harness.port}/portForward/default/${name}?port=${httpPort}`,
      'v4.channel.k8s.io',
      (ch) => (ch.get(0)?.toString('latin1') ?? '').includes('pf-hello'),
      (sock) => sock.send(Buffer.concat([Buffer.from([0]), request])),
    );
    const data = pf.channels.get(0) ?? Buffer.alloc(0);
    expect(data.readUInt16LE(0)).toBe(httpPort);
    expect(data.subarray(2).toString('latin1')).toMatch(/^HTTP\/1\.[01] 200 OK[\s\S]*pf-hello\n$/);

    // Port-forward over SPDY: an error and a data stream per request, named by port and requestid.
    const pfs = await spdyUpgrade(harness.port, `/portForward/default/${name}`, ['portforward.k8s.io']);
    expect(pfs.status).toBe(101);
    expect(pfs.protocol).toBe('portforward.k8s.io');
    await pfs.conn!.open({ streamtype: 'error', port: String(httpPort), requestid: '0' });
    const dataId = await pfs.conn!.open({ streamtype: 'data', port: String(httpPort), requestid: '0' });
    pfs.conn!.write(dataId, request);
    const got = await pfs.conn!.waitFor(dataId, 1 << 20);
    expect(got.toString('latin1')).toMatch(/^HTTP\/1\.[01] 200 OK[\s\S]*pf-hello\n$/);
    pfs.conn!.close();
    await pfs.conn!.closed;

    // /run: the command's output, through ExecSync.
    const run = await fetch(`${harness.origin}/run/default/${name}/main?cmd=echo%20ran`, { method: 'POST' });
    expect(run.status).toBe(200);
    expect(await run.text()).toBe('ran\n');
  }, 120_000);
});
