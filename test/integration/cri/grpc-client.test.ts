// The real CRI client against the fake CRI gRPC server: data round trips,
// deadlines, cancellation, the version handshake, and runtime restarts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AgentError } from '../../../src/errors.js';
import { CriError, isDeadlineExceeded, isNotFound, isUnavailable } from '../../../src/cri/errors.js';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import { createCriRuntime, type CriRuntime, type CriRuntimeOptions } from '../../../src/cri/grpc-client.js';
import { FakeCriServer } from '../../helpers/fake-cri-server.js';
import { fullContainerConfig, fullSandboxConfig, hostNetworkSandboxConfig, recordingLog } from '../../unit/cri/cri-fixtures.js';

const servers: FakeCriServer[] = [];
const clients: CriRuntime[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) await s.dispose();
});

async function server(opts: Parameters<typeof FakeCriServer.start>[0] = {}): Promise<FakeCriServer> {
  const s = await FakeCriServer.start(opts);
  servers.push(s);
  return s;
}

async function client(endpoint: string, opts: Partial<CriRuntimeOptions> = {}): Promise<CriRuntime> {
  const c = await createCriRuntime({ runtimeEndpoint: endpoint, requestTimeoutMs: 5_000, connectTimeoutMs: 5_000, log: recordingLog(), ...opts });
  clients.push(c);
  return c;
}

function runtimeWithImages(): FakeRuntime {
  return new FakeRuntime({
    images: ['busybox', { ref: 'registry.local:5000/app:1', size: 4_294_967_296 * 3, pinned: true, repoDigests: ['registry.local:5000/app@sha256:' + 'a'.repeat(64)] }],
    registry: { 'registry.local:5000/private:2': { auth: { username: 'u', password: 'p' }, image: { size: 42 } } },
  });
}

describe('CRI client over gRPC: data', () => {
  it('round-trips every RuntimeService method', async () => {
    const srv = await server({ runtime: runtimeWithImages() });
    const fake = srv.runtime;
    const cri = await client(srv.endpoint);

    expect(cri.runtimeInfo).toEqual(await fake.version());
    expect(await cri.version()).toEqual({ version: '0.1.0', runtimeName: 'fake', runtimeVersion: '0.0.0-fake', runtimeApiVersion: 'v1' });
    fake.setCondition('NetworkReady', false, 'NetworkPluginNotReady', 'cni config uninitialized');
    expect(await cri.status()).toEqual(await fake.status());

    const sbConfig = fullSandboxConfig();
    const sb = await cri.runPodSandbox(sbConfig, 'runc');
    expect(fake.callsOf('runPodSandbox').at(-1)).toEqual([sbConfig, 'runc']);
    const hostSb = await cri.runPodSandbox(hostNetworkSandboxConfig(), '');
    expect(fake.callsOf('runPodSandbox').at(-1)).toEqual([hostNetworkSandboxConfig(), '']);

    const sbStatus = await cri.podSandboxStatus(sb);
    expect(sbStatus).toEqual(await fake.podSandboxStatus(sb));
    expect(sbStatus).toMatchObject({ id: sb, state: 'READY', ip: '10.88.0.1', namespaceOptions: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' } });
    expect(typeof sbStatus.createdAt).toBe('bigint');
    expect((await cri.podSandboxStatus(hostSb)).ip).toBe('');

    const filter = { state: 'READY' as const, labelSelector: { app: 'web' } };
    const listed = await cri.listPodSandbox(filter);
    expect(fake.callsOf('listPodSandbox').at(-1)).toEqual([filter]);
    expect(listed).toEqual(await fake.listPodSandbox(filter));
    expect(listed.map((s) => s.id)).toEqual([sb, hostSb]);
    expect(await cri.listPodSandbox({ id: hostSb })).toHaveLength(1);
    expect(await cri.listPodSandbox()).toHaveLength(2);
    expect(fake.callsOf('listPodSandbox').at(-1)).toEqual([undefined]);

    const cConfig = fullContainerConfig();
    const cid = await cri.createContainer(sb, cConfig, sbConfig);
    expect(fake.callsOf('createContainer').at(-1)).toEqual([sb, cConfig, sbConfig]);
    await cri.startContainer(cid);
    const cFilter = { podSandboxId: sb, state: 'RUNNING' as const, labelSelector: { 'io.platform.container.name': 'app' } };
    const containers = await cri.listContainers(cFilter);
    expect(fake.callsOf('listContainers').at(-1)).toEqual([cFilter]);
    expect(containers).toEqual(await fake.listContainers(cFilter));
    expect(containers).toHaveLength(1);
    expect(containers[0]).toMatchObject({ id: cid, podSandboxId: sb, state: 'RUNNING', image: cConfig.image, metadata: { name: 'app', attempt: 3 } });

    const st = await cri.containerStatus(cid);
    expect(st).toEqual(await fake.containerStatus(cid));
    expect(st.logPath).toBe(`${sbConfig.logDirectory}/app/3.log`);
    expect(st.startedAt).toBeGreaterThan(0n);

    await cri.stopContainer(cid, 7);
    expect(fake.callsOf('stopContainer').at(-1)).toEqual([cid, 7]);
    expect(await cri.containerStatus(cid)).toMatchObject({ state: 'EXITED', exitCode: 143, reason: 'Error' });
    expect((await cri.containerStatus(cid)).finishedAt).toBeGreaterThanOrEqual(st.startedAt);
    await cri.removeContainer(cid);
    expect(await cri.listContainers()).toEqual([]);
    await cri.stopPodSandbox(sb);
    expect((await cri.podSandboxStatus(sb)).state).toBe('NOTREADY');
    await cri.removePodSandbox(sb);
    expect((await cri.listPodSandbox()).map((s) => s.id)).toEqual([hostSb]);
  });

  it('round-trips every ImageService method, credentials included', async () => {
    const srv = await server({ runtime: runtimeWithImages() });
    const fake = srv.runtime;
    const cri = await client(srv.endpoint);

    const images = await cri.listImages();
    expect(images).toEqual(await fake.listImages());
    expect(images.find((i) => i.repoTags.includes('registry.local:5000/app:1'))).toMatchObject({ size: 4_294_967_296 * 3, pinned: true });

    expect(await cri.imageStatus('busybox')).toEqual(await fake.imageStatus('busybox'));
    expect(await cri.imageStatus('nosuch:1')).toBeUndefined();

    const auth = { username: 'u', password: 'p', serverAddress: 'registry.local:5000' };
    const sbConfig = fullSandboxConfig();
    const ref = await cri.pullImage('registry.local:5000/private:2', auth, sbConfig);
    expect(ref).toMatch(/^sha256:[0-9a-f]{64}$/);
    // server_address travels with a scheme (containerd rejects a bare host:port)
    expect(fake.callsOf('pullImage').at(-1)).toEqual(['registry.local:5000/private:2', { ...auth, serverAddress: 'https://registry.local:5000' }, sbConfig]);
    expect((await cri.imageStatus('registry.local:5000/private:2'))?.id).toBe(ref);

    const denied = await cri.pullImage('registry.local:5000/private:2', undefined, undefined).catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(CriError);
    expect((denied as CriError).details).toContain('401 Unauthorized');
    expect(fake.callsOf('pullImage').at(-1)).toEqual(['registry.local:5000/private:2', undefined, undefined]);

    const missing = await cri.pullImage('nosuch:1', undefined, undefined).catch((e: unknown) => e);
    expect(isNotFound(missing)).toBe(true);

    expect(await cri.imageFsInfo()).toEqual(await fake.imageFsInfo());
    await cri.removeImage(ref);
    expect(await cri.imageStatus(ref)).toBeUndefined();
  });

  it('maps the runtime status to a CriError naming the method and endpoint', async () => {
    const srv = await server();
    const cri = await client(srv.endpoint);
    const err = await cri.containerStatus('nope').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CriError);
    expect(err).toMatchObject({ code: 'ECRI', status: 'NOT_FOUND', grpcCode: 5, method: 'RuntimeService/ContainerStatus', endpoint: srv.endpoint });
    expect((err as CriError).details).toContain('nope');
    expect(isNotFound(err)).toBe(true);

    srv.runtime.failNext('startContainer', 'RESOURCE_EXHAUSTED');
    await expect(cri.startContainer('x')).rejects.toMatchObject({ status: 'RESOURCE_EXHAUSTED' });
  });

  it('traces each call at V(5) when the logger has v()', async () => {
    const srv = await server();
    const traces: Array<Record<string, unknown> | undefined> = [];
    const log = { ...recordingLog(), v: (level: number) => (level <= 5 ? { info: (_m: string, f?: Record<string, unknown>) => void traces.push(f) } : undefined) };
    const cri = await client(srv.endpoint, { log });
    await cri.listImages();
    await cri.podSandboxStatus('missing').catch(() => undefined);
    expect(traces.at(-2)).toMatchObject({ method: 'ImageService/ListImages', status: 'OK' });
    expect(traces.at(-1)).toMatchObject({ method: 'RuntimeService/PodSandboxStatus', status: 'NOT_FOUND' });
    expect(typeof traces.at(-1)?.['durationMs']).toBe('number');
  });

  it('works over tcp:// and with a separate image endpoint', async () => {
    const rtSrv = await server({ transport: 'tcp' });
    const imgSrv = await server({ runtime: new FakeRuntime({ images: ['only-here:1'] }) });
    expect(rtSrv.endpoint).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
    const cri = await client(rtSrv.endpoint, { imageEndpoint: imgSrv.endpoint });
    await cri.runPodSandbox(fullSandboxConfig(), '');
    expect(rtSrv.runtime.callsOf('runPodSandbox')).toHaveLength(1);
    expect((await cri.listImages()).map((i) => i.repoTags)).toEqual([['docker.io/library/only-here:1']]);
    expect(imgSrv.runtime.callsOf('listImages')).toHaveLength(1);
    expect(rtSrv.runtime.callsOf('listImages')).toHaveLength(0);
    // the separate image endpoint was validated at start, as the kubelet does
    expect(imgSrv.runtime.callsOf('imageFsInfo')).toHaveLength(1);
  });

  it('accepts a bare socket path with a deprecation warning', async () => {
    const srv = await server();
    const log = recordingLog();
    await client(srv.endpoint.replace(/^unix:\/\//, ''), { log });
    expect(log.records.filter((r) => r.level === 'warn')).toEqual([
      { level: 'warn', msg: 'Runtime endpoint without a scheme is deprecated; use the full URL', fields: expect.objectContaining({ use: srv.endpoint }) },
    ]);
  });

  it('rejects calls after close() with CANCELLED', async () => {
    const srv = await server();
    const cri = await client(srv.endpoint);
    cri.close();
    cri.close();
    await expect(cri.version()).rejects.toMatchObject({ status: 'CANCELLED' });
  });
});

describe('CRI client over gRPC: deadlines and cancellation', () => {
  it('gives every call the request timeout, StopContainer the timeout plus its grace period, PullImage none', async () => {
    const srv = await server({ runtime: new FakeRuntime({ images: ['busybox'] }) });
    const cri = await client(srv.endpoint, { requestTimeoutMs: 7_000 });
    const sb = await cri.runPodSandbox(fullSandboxConfig(), '');
    const cid = await cri.createContainer(sb, fullContainerConfig('busybox'), fullSandboxConfig());
    await cri.stopContainer(cid, 30);
    await cri.pullImage('busybox', undefined, undefined);
    await cri.listImages();
    const budget = (m: Parameters<FakeCriServer['receivedOf']>[0]): number => {
      const r = srv.receivedOf(m).at(-1);
      if (r === undefined) throw new Error(`no ${m} call received`);
      return r.deadline - r.receivedAt;
    };
    for (const m of ['runPodSandbox', 'createContainer', 'listImages'] as const) {
      expect(budget(m)).toBeGreaterThan(6_000);
      expect(budget(m)).toBeLessThanOrEqual(7_000);
    }
    expect(budget('stopContainer')).toBeGreaterThan(36_000);
    expect(budget('stopContainer')).toBeLessThanOrEqual(37_000);
    expect(budget('pullImage')).toBe(Infinity);
  });

  it('fails a call the runtime never answers with DEADLINE_EXCEEDED after the request timeout', async () => {
    const srv = await server();
    const cri = await client(srv.endpoint, { requestTimeoutMs: 200 });
    const held = srv.runtime.block('containerStatus');
    const t0 = performance.now();
    const err = await cri.containerStatus('x').catch((e: unknown) => e);
    const elapsed = performance.now() - t0;
    expect(isDeadlineExceeded(err)).toBe(true);
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(2_000);
    await held.cancelled; // the server saw the call cancelled
  });

  it('lets StopContainer outlive the request timeout by its grace period', async () => {
    const srv = await server({ runtime: new FakeRuntime({ images: ['busybox'] }) });
    const cri = await client(srv.endpoint, { requestTimeoutMs: 200 });
    const sb = await cri.runPodSandbox(fullSandboxConfig(), '');
    const cid = await cri.createContainer(sb, fullContainerConfig('busybox'), fullSandboxConfig());
    await cri.startContainer(cid);
    const stopHeld = srv.runtime.block('stopContainer');
    const statusHeld = srv.runtime.block('containerStatus');
    let stopSettled = false;
    const stop = cri.stopContainer(cid, 2).finally(() => (stopSettled = true));
    const status = cri.containerStatus(cid);
    await Promise.all([stopHeld.arrived, statusHeld.arrived]);
    // both calls started together; the plain one runs out of time first ...
    await expect(status).rejects.toSatisfy(isDeadlineExceeded);
    expect(stopSettled).toBe(false);
    // ... while StopContainer may still complete
    stopHeld.release();
    await stop;
    expect((await srv.runtime.containerStatus(cid)).state).toBe('EXITED');
  });

  it('lets a pull run longer than the request timeout', async () => {
    const srv = await server({ runtime: new FakeRuntime({ registry: { 'slow:1': { delayMs: 600 } } }) });
    const cri = await client(srv.endpoint, { requestTimeoutMs: 150 });
    const t0 = performance.now();
    await expect(cri.pullImage('slow:1', undefined, undefined)).resolves.toMatch(/^sha256:/);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(590);
  });

  it("cancels a call when the caller's signal aborts, and never sends one whose signal already has", async () => {
    const srv = await server();
    const cri = await client(srv.endpoint);
    const held = srv.runtime.block('listContainers');
    const ac = new AbortController();
    const call = cri.listContainers(undefined, ac.signal);
    await held.arrived;
    const reason = new Error('pod worker stopped');
    ac.abort(reason);
    await expect(call).rejects.toBe(reason);
    await expect(held.cancelled).resolves.toBeInstanceOf(Error);

    const before = srv.received.length;
    await expect(cri.listPodSandbox(undefined, AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(srv.received.length).toBe(before);
  });
});

describe('CRI client over gRPC: handshake and runtime restarts', () => {
  it('refuses a runtime that does not serve runtime.v1, naming the endpoint', async () => {
    const srv = await server({ apiPackage: 'runtime.v1alpha2' });
    const err = await createCriRuntime({ runtimeEndpoint: srv.endpoint, requestTimeoutMs: 2_000, log: recordingLog() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentError);
    expect(err).toMatchObject({ code: 'ESTARTUP' });
    expect((err as Error).message).toContain(srv.endpoint);
    expect((err as Error).message).toContain('CRI runtime.v1');
    expect((err as Error).message).toContain('UNIMPLEMENTED');
  });

  it('refuses a separate image endpoint that does not serve runtime.v1', async () => {
    const rt = await server();
    const img = await server({ apiPackage: 'runtime.v1alpha2' });
    const err = await createCriRuntime({ runtimeEndpoint: rt.endpoint, imageEndpoint: img.endpoint, requestTimeoutMs: 2_000, log: recordingLog() }).catch((e: unknown) => e);
    expect((err as Error).message).toContain(img.endpoint);
    expect((err as Error).message).toContain('ImageService/ImageFsInfo');
  });

  it('waits at start for a runtime that is not up yet', async () => {
    const srv = await server();
    await srv.stop();
    let announce!: () => void;
    const waiting = new Promise<void>((r) => (announce = r));
    const log = recordingLog();
    const info = log.info;
    log.info = (msg, fields) => {
      info(msg, fields);
      if (msg === 'Waiting for the container runtime') announce();
    };
    const creating = createCriRuntime({ runtimeEndpoint: srv.endpoint, requestTimeoutMs: 1_000, connectTimeoutMs: 15_000, log });
    await waiting;
    await srv.start();
    const cri = await creating;
    clients.push(cri);
    expect(cri.runtimeInfo.runtimeApiVersion).toBe('v1');
    expect(log.records.map((r) => r.msg)).toEqual(['Waiting for the container runtime', 'Connected to the container runtime']);
  });

  it('gives up at start after the connect timeout, naming the endpoint', async () => {
    const srv = await server();
    await srv.stop();
    const t0 = performance.now();
    const err = await createCriRuntime({ runtimeEndpoint: srv.endpoint, requestTimeoutMs: 1_000, connectTimeoutMs: 300, log: recordingLog() }).catch((e: unknown) => e);
    expect(performance.now() - t0).toBeLessThan(3_000);
    expect(err).toMatchObject({ code: 'ESTARTUP' });
    expect((err as Error).message).toContain(`cannot use the container runtime at ${srv.endpoint}`);
    expect(isUnavailable((err as Error).cause)).toBe(true);
  });

  it('stops the start-up wait when its signal aborts', async () => {
    const srv = await server();
    await srv.stop();
    const ac = new AbortController();
    const reason = new Error('shutting down');
    const creating = createCriRuntime({ runtimeEndpoint: srv.endpoint, requestTimeoutMs: 1_000, connectTimeoutMs: 60_000, log: recordingLog(), signal: ac.signal });
    ac.abort(reason);
    await expect(creating).rejects.toBe(reason);
  });

  it('rejects malformed endpoints and timeouts before connecting', async () => {
    await expect(createCriRuntime({ runtimeEndpoint: 'npipe:////./pipe/containerd', requestTimeoutMs: 1_000, log: recordingLog() })).rejects.toMatchObject({
      code: 'EVALUE',
      flag: '--container-runtime-endpoint',
    });
    await expect(createCriRuntime({ runtimeEndpoint: 'unix:///x.sock', imageEndpoint: 'http://x', requestTimeoutMs: 1_000, log: recordingLog() })).rejects.toMatchObject({
      code: 'EVALUE',
      flag: '--image-service-endpoint',
    });
    await expect(createCriRuntime({ runtimeEndpoint: 'unix:///x.sock', requestTimeoutMs: 0, log: recordingLog() })).rejects.toMatchObject({
      code: 'EVALUE',
      flag: '--runtime-request-timeout',
    });
  });

  it('fails fast with UNAVAILABLE while the runtime is down and recovers when it is back, same client', async () => {
    const srv = await server({ runtime: new FakeRuntime({ images: ['busybox'] }) });
    const cri = await client(srv.endpoint, { requestTimeoutMs: 10_000 });
    const sb = await cri.runPodSandbox(fullSandboxConfig(), '');

    // a call in flight when the runtime dies fails too
    const held = srv.runtime.block('listContainers');
    const inFlight = cri.listContainers();
    await held.arrived;
    await srv.stop();
    await expect(inFlight).rejects.toSatisfy(isUnavailable);

    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      const err = await cri.version().catch((e: unknown) => e);
      expect(isUnavailable(err)).toBe(true);
      expect(performance.now() - t0).toBeLessThan(1_000); // not the 10 s deadline
    }

    await srv.start(); // same socket path, same (stateful) fake behind it
    await vi.waitFor(() => cri.version(), { timeout: 10_000, interval: 50 });
    expect((await cri.podSandboxStatus(sb)).state).toBe('READY');
    expect(await cri.listContainers()).toEqual([]);
  });
});

describe('CRI client over gRPC: malformed answers', () => {
  /** A bare HTTP/2 server: Version answers properly, the rest as `answer` says. */
  async function rawServer(answer: (path: string) => Buffer[]): Promise<{ endpoint: string; close: () => Promise<void> }> {
    const { createServer } = await import('node:http2');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(`${tmpdir()}/cri-raw-`);
    const frame = (body: Buffer): Buffer => Buffer.concat([Buffer.from([0, 0, 0, 0, body.length]), body]);
    const srv = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const path = req.headers[':path'] ?? '';
        // VersionResponse{runtime_name: "raw", runtime_api_version: "v1"}
        const bodies = path.endsWith('/Version') ? [Buffer.from([0x12, 3, 0x72, 0x61, 0x77, 0x22, 2, 0x76, 0x31])] : answer(path);
        res.writeHead(200, { 'content-type': 'application/grpc' });
        for (const b of bodies) res.write(frame(b));
        res.addTrailers({ 'grpc-status': '0' });
        res.end();
      });
    });
    const sessions = new Set<import('node:http2').ServerHttp2Session>();
    srv.on('session', (s) => {
      sessions.add(s);
      s.on('close', () => sessions.delete(s));
    });
    await new Promise<void>((r) => srv.listen(`${dir}/cri.sock`, r));
    return {
      endpoint: `unix://${dir}/cri.sock`,
      close: () =>
        new Promise<void>((r) => {
          srv.close(() => r());
          for (const s of sessions) s.destroy();
          rmSync(dir, { recursive: true, force: true });
        }),
    };
  }

  it('reports an OK answer without a message, with two messages, or with bytes that do not decode', async () => {
    const raw = await rawServer((path) => {
      if (path.endsWith('/ContainerStatus')) return [];
      if (path.endsWith('/PodSandboxStatus')) return [Buffer.from([0x0a, 1]), Buffer.from([0x0a, 1])];
      return [Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f])]; // a length past the end
    });
    try {
      const cri = await client(raw.endpoint);
      expect(cri.runtimeInfo.runtimeName).toBe('raw');
      await expect(cri.containerStatus('x')).rejects.toMatchObject({ status: 'UNIMPLEMENTED', details: 'No message received', method: 'RuntimeService/ContainerStatus' });
      await expect(cri.podSandboxStatus('x')).rejects.toMatchObject({ status: 'UNIMPLEMENTED', details: 'Too many responses received' });
      await expect(cri.imageStatus('busybox')).rejects.toMatchObject({ status: 'INTERNAL', method: 'ImageService/ImageStatus' });
      // The connection is still good for the next call.
      expect((await cri.version()).runtimeName).toBe('raw');
    } finally {
      await raw.close();
    }
  });
});
