// The streaming routes on loopback with the fake runtime: its streaming URLs
// point at a scripted echo server, so the proxy's byte transparency, the
// headers it forwards, the idle timeout and every pre-upgrade answer show.
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FakeStreamRequest } from '../../../src/cri/fake-runtime.js';
import { streamingRoutes } from '../../../src/server/streaming/index.js';
import { closed, echoRuntime, rawRequest, readBytes, serveRoutes, type EchoRuntime, type Harness } from '../../helpers/streaming-harness.js';
import { runningPod, silentLog, UID, upgradeRequest, type Fixture } from './streaming-fixture.js';

let fx: Fixture;
let echo: EchoRuntime;
let node: Harness;
let asked: FakeStreamRequest[];

async function start(idleMs = 0): Promise<void> {
  node = await serveRoutes(streamingRoutes({ status: fx.status, runtime: fx.runtime, streamingIdleTimeoutMs: idleMs, log: silentLog }));
}

beforeEach(async () => {
  fx = await runningPod();
  echo = await echoRuntime();
  asked = [];
  let n = 0;
  fx.runtime.setOnStream((r) => {
    asked.push(r);
    return `${echo.origin}/${r.kind}/token-${++n}`;
  });
});

afterEach(async () => {
  await node.close();
  await echo.close();
});

describe('exec through the proxy', () => {
  it('upgrades to the runtime URL and carries every byte both ways unchanged', async () => {
    await start();
    const r = await rawRequest(node.port, upgradeRequest('/exec/default/web/app?command=sh&command=-c&command=echo%20hi&input=1&output=1&error=1'));
    expect(r.status).toBe(101);
    expect(r.head).toMatch(/\r\nUpgrade: SPDY\/3\.1/);
    expect(r.head).toMatch(/X-Stream-Protocol-Version: v4\.channel\.k8s\.io/);
    expect(asked).toEqual([{ kind: 'exec', req: { containerId: fx.containerId, cmd: ['sh', '-c', 'echo hi'], stdin: true, stdout: true, stderr: true, tty: false } }]);
    // The runtime saw its own path, the client's protocol headers, and not the node's credentials.
    expect(echo.seen[0]?.url).toBe('/exec/token-1');
    expect(echo.seen[0]?.headers['x-stream-protocol-version']).toBe('v4.channel.k8s.io, v3.channel.k8s.io');
    expect(echo.seen[0]?.headers.authorization).toBeUndefined();
    expect(echo.seen[0]?.headers['x-forwarded-for']).toBe('127.0.0.1');
    const payload = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(1 << 20)]);
    r.socket.write(payload);
    const back = await readBytes(r.socket, payload.length, r.rest);
    expect(back.equals(payload)).toBe(true);
    r.socket.destroy();
  });

  it('takes the uid form, drops stderr under a tty, and forwards a WebSocket upgrade', async () => {
    await start();
    const r = await rawRequest(node.port, upgradeRequest(`/exec/default/web/${UID}/app?command=sh&output=1&error=1&tty=1&input=1`, { websocket: true }));
    expect(r.status).toBe(101);
    expect(r.head).toMatch(/Upgrade: websocket/);
    expect(asked[0]).toEqual({ kind: 'exec', req: { containerId: fx.containerId, cmd: ['sh'], stdin: true, stdout: true, stderr: false, tty: true } });
    expect(echo.seen[0]?.headers['sec-websocket-protocol']).toBe('v4.channel.k8s.io');
    expect(echo.seen[0]?.headers['sec-websocket-key']).toBe('dGhlIHNhbXBsZSBub25jZQ==');
    r.socket.destroy();
  });

  it('attach asks CRI Attach for the named container', async () => {
    await start();
    const r = await rawRequest(node.port, upgradeRequest('/attach/default/web/app?output=1'));
    expect(r.status).toBe(101);
    expect(asked[0]).toEqual({ kind: 'attach', req: { containerId: fx.containerId, stdin: false, stdout: true, stderr: false, tty: false } });
    r.socket.destroy();
  });

  it('passes the runtime answer through when it refuses the upgrade', async () => {
    fx.runtime.setOnStream(() => `${echo.origin}/refuse/x`);
    await start();
    const r = await rawRequest(node.port, upgradeRequest('/exec/default/web/app?command=ls&output=1'));
    expect(r.status).toBe(403);
    expect((await readBytes(r.socket, 8, r.rest)).toString()).toBe('refused\n');
    await closed(r.socket);
  });

  it('closes a stream idle for --streaming-connection-idle-timeout, and not one in use', async () => {
    await start(300);
    const r = await rawRequest(node.port, upgradeRequest('/exec/default/web/app?command=sh&input=1&output=1'));
    expect(r.status).toBe(101);
    // A stream in use is carried (each echo arrives); once idle the node closes it.
    for (let i = 0; i < 4; i++) {
      r.socket.write(`ping${i}`);
      expect((await readBytes(r.socket, 5)).toString()).toBe(`ping${i}`);
    }
    await closed(r.socket);
    expect(r.socket.destroyed).toBe(true);
  });
});

describe('answers before any stream', () => {
  const cases: Array<[string, string, number, RegExp]> = [
    ['unknown pod', '/exec/default/nope/app?command=ls&output=1', 404, /pod does not exist: default\/nope/],
    ['uid mismatch', '/exec/default/web/other-uid/app?command=ls&output=1', 404, /pod does not exist: default\/web with uid other-uid/],
    ['unknown container', '/exec/default/web/nope?command=ls&output=1', 404, /container not found \("nope"\) in pod default\/web/],
    ['no stream', '/exec/default/web/app?command=ls', 400, /at least 1 of stdin, stdout, stderr/],
    ['no command', '/exec/default/web/app?output=1', 400, /"command" is required/],
    ['short path', '/exec/default/web', 404, /expected \/exec\/\{namespace\}/],
    ['websocket port-forward without port', '/portForward/default/web', 400, /"port" is required/],
    ['bad port', '/portForward/default/web?port=80,http', 400, /unable to parse "http" as a port/],
    ['port 0', '/portForward/default/web?port=0', 400, /port "0" must be > 0/],
  ];
  it.each(cases)('%s', async (_name, path, status, message) => {
    await start();
    const r = await rawRequest(node.port, upgradeRequest(path, { websocket: true }));
    expect(r.status).toBe(status);
    expect((await readBytes(r.socket, 1 << 16, r.rest)).toString()).toMatch(message);
    expect(asked).toEqual([]);
  });

  it('a plain request is checked, then told to upgrade (400), and prepares no stream', async () => {
    await start();
    const res = await fetch(`${node.origin}/exec/default/web/app?command=ls&output=1`, { method: 'POST' });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/Upgrade request required/);
    const missing = await fetch(`${node.origin}/attach/default/nope/app?output=1`);
    expect(missing.status).toBe(404);
    expect(asked).toEqual([]);
  });

  it('a runtime failure is an error naming the call; an unreachable streaming server is a 500', async () => {
    await start();
    fx.runtime.failNext('exec', 'UNAVAILABLE');
    const r = await rawRequest(node.port, upgradeRequest('/exec/default/web/app?command=ls&output=1'));
    expect(r.status).toBe(500);
    expect((await readBytes(r.socket, 1 << 16, r.rest)).toString()).toMatch(/runtime Exec for container app of pod default\/web failed: .*UNAVAILABLE/);
    fx.runtime.setOnStream(() => 'http://127.0.0.1:1/exec/x');
    const d = await rawRequest(node.port, upgradeRequest('/exec/default/web/app?command=ls&output=1'));
    expect(d.status).toBe(500);
    expect((await readBytes(d.socket, 1 << 16, d.rest)).toString()).toMatch(/error dialing backend/);
  });
});

describe('portForward and /cri/', () => {
  it('forwards the WebSocket ports to CRI PortForward; SPDY names them per stream', async () => {
    await start();
    const ws = await rawRequest(node.port, upgradeRequest(`/portForward/default/web/${UID}?port=80,8080&port=9000`, { websocket: true }));
    expect(ws.status).toBe(101);
    const spdy = await rawRequest(node.port, upgradeRequest('/portForward/default/web?port=1234'));
    expect(spdy.status).toBe(101);
    expect(asked).toEqual([
      { kind: 'portForward', req: { podSandboxId: fx.sandboxId, port: [80, 8080, 9000] } },
      { kind: 'portForward', req: { podSandboxId: fx.sandboxId, port: [] } },
    ]);
    ws.socket.destroy();
    spdy.socket.destroy();
  });

  it('/cri/ proxies to the streaming server of the last URL handed out', async () => {
    await start();
    const before = await rawRequest(node.port, upgradeRequest('/cri/exec/abc'));
    expect(before.status).toBe(404);
    before.socket.destroy();
    const first = await rawRequest(node.port, upgradeRequest('/exec/default/web/app?command=ls&output=1'));
    first.socket.destroy();
    const r = await rawRequest(node.port, upgradeRequest('/cri/exec/abc?x=1'));
    expect(r.status).toBe(101);
    expect(echo.seen.at(-1)?.url).toBe('/exec/abc?x=1');
    r.socket.write('z');
    expect((await readBytes(r.socket, 1, r.rest)).toString()).toBe('z');
    r.socket.destroy();
  });
});

describe('/run', () => {
  it('answers stdout then stderr of a finished command; a failing one is a 500 naming its exit', async () => {
    fx.runtime.setOnExec((cmd) => (cmd[0] === 'fail' ? { exitCode: 3, stderr: Buffer.from('boom') } : { stdout: Buffer.from(`out:${cmd.join('|')}\n`), stderr: Buffer.from('err\n') }));
    await start();
    const ok = await fetch(`${node.origin}/run/default/web/app?cmd=echo%20a%20b`, { method: 'POST' });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('out:echo|a|b\nerr\n');
    expect(fx.runtime.callsOf('execSync').at(-1)).toEqual([fx.containerId, ['echo', 'a', 'b'], 0]);
    const bad = await fetch(`${node.origin}/run/default/web/${UID}/app?cmd=fail`, { method: 'POST' });
    expect(bad.status).toBe(500);
    expect(await bad.text()).toBe("command 'fail' exited with 3: boom\n");
    const none = await fetch(`${node.origin}/run/default/web/app`, { method: 'POST' });
    expect(none.status).toBe(400);
    const get = await fetch(`${node.origin}/run/default/web/app?cmd=ls`);
    expect(get.status).toBe(405);
  });
});
