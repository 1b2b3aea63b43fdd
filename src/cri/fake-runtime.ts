// FakeRuntime: an in-memory, deterministic Runtime for unit tests of the sync
// loop, the PLEG and the image manager, and the backend of the fake CRI gRPC
// server. It follows containerd's observable rules where the agent depends on
// them (states, name reservation, idempotent stop/remove, NOT_FOUND codes,
// exit reasons), and nothing more.
//
// Time comes from an injectable clock (ns since the epoch). Container exits are
// judged lazily against that clock on every call, so no timers run: advance a
// ManualClock (or fake timers, with the default Date.now clock) and the next
// relist sees the exit. Only pull delays and blocked calls wait in real time.

import { CriError, type GrpcStatusName } from './errors.js';
import { defaultStreamUrl, execRequestError, type FakeStream } from './fake-streaming.js';
import { FakeFaults, type FakeBlock, type FakeCall } from './fake-faults.js';
import { copyImage, FakeImageStore, type FakeImage, type FakePullBehaviour } from './fake-images.js';
import { containerBase, finishContainer, labelsMatch, sandboxView, settleContainers, type FakeContainer, type FakeProcess, type FakeProgram, type FakeSandbox } from './fake-records.js';
import type { CriMethod, CriMethodArgs } from './methods.js';
import type {
  AttachRequest,
  AuthConfig,
  ExecRequest,
  PortForwardRequest,
  Container,
  ContainerConfig,
  ContainerFilter,
  ContainerStatus,
  ExecSyncResult,
  FilesystemUsage,
  Image,
  PodSandbox,
  PodSandboxConfig,
  PodSandboxStatus,
  Runtime,
  RuntimeCondition,
  SandboxFilter,
  VersionInfo,
} from './types.js';
import { FakeStatsTable } from './fake-stats.js';
import type { ContainerStats, ContainerStatsFilter, PodSandboxStats, PodSandboxStatsFilter } from './types.js';

export type { FakeImage, FakePullBehaviour } from './fake-images.js';
export { normalizeImageRef } from './fake-images.js';
export type { FakeBlock, FakeCall } from './fake-faults.js';
export type { FakeUsage } from './fake-stats.js';
export type { FakeStream, FakeStreamRequest } from './fake-streaming.js';
export { ManualClock, type FakeContainer, type FakeProcess, type FakeProgram, type FakeSandbox } from './fake-records.js';

export interface FakeRuntimeOptions {
  /** Nanoseconds since the epoch; default the wall clock (Date.now, so vitest's fake timers drive it). */
  now?: () => bigint;
  /** Images present from the start. */
  images?: Array<string | FakeImage>;
  /** Pullable references and how pulls of them behave. */
  registry?: Record<string, FakePullBehaviour>;
  /** Decides each started container's behaviour; default: runs until stopped. */
  onStart?: FakeProgram;
  runtimeName?: string;
  /** Answers ExecSync in a running container; default: exit 0 with no output. */
  onExec?: FakeExec;
  /** issue 18 D: streaming. The URL Exec/Attach/PortForward answer; default http://127.0.0.1:1/<kind>/<n> (nothing listens). */
  onStream?: FakeStream;
}


/** What an exec in a fake container does: its exit code and output (absent fields: 0 and empty); may wait. */
export type FakeExec = (cmd: readonly string[], ctx: { containerId: string; config: ContainerConfig; timeoutSeconds: number }) => Partial<ExecSyncResult> | Promise<Partial<ExecSyncResult>>;

const MS = 1_000_000n;

export class FakeRuntime implements Runtime {
  private readonly faults = new FakeFaults();
  /** Every call, in order, with its arguments (the signal left out), including calls that failed. */
  readonly calls: FakeCall[] = this.faults.calls;
  readonly images: FakeImageStore = new FakeImageStore();
  private readonly now: () => bigint;
  private program: FakeProgram;
  private execHandler: FakeExec;
  private readonly runtimeName: string;
  private streamHandler: FakeStream;
  private readonly sandboxMap = new Map<string, FakeSandbox>();
  private readonly containerMap = new Map<string, FakeContainer>();
  private readonly conditions = new Map<string, RuntimeCondition>([
    ['RuntimeReady', { type: 'RuntimeReady', status: true, reason: '', message: '' }],
    ['NetworkReady', { type: 'NetworkReady', status: true, reason: '', message: '' }],
  ]);
  private seq = 0;

  constructor(opts: FakeRuntimeOptions = {}) {
    this.now = opts.now ?? (() => BigInt(Date.now()) * MS);
    this.program = opts.onStart ?? (() => undefined);
    this.execHandler = opts.onExec ?? (() => ({}));
    this.streamHandler = opts.onStream ?? defaultStreamUrl;
    this.runtimeName = opts.runtimeName ?? 'fake';
    for (const img of opts.images ?? []) this.images.add(img);
    for (const [ref, b] of Object.entries(opts.registry ?? {})) this.images.setRegistry(ref, b);
  }

  // ---- test controls --------------------------------------------------------

  setOnExec(exec: FakeExec): void {
    this.execHandler = exec;
  }

  setOnStart(program: FakeProgram): void {
    this.program = program;
  }

  /** The next `times` calls of `method` fail with `error` (a CriError, or a status with a stock message). */
  failNext(method: CriMethod, error: CriError | GrpcStatusName, times = 1): void {
    this.faults.failNext(method, error, times);
  }

  /** Runtime down: while set, every call fails with UNAVAILABLE, as when the socket is gone. State is kept. */
  setDown(down: boolean): void {
    this.faults.setDown(down);
  }

  /** Holds the next call of `method` until released (or until its signal aborts). */
  block(method: CriMethod): FakeBlock {
    return this.faults.block(method);
  }


  setCondition(type: string, status: boolean, reason = '', message = ''): void {
    this.conditions.set(type, { type, status, reason, message });
  }

  /** Ends a running container now, as if its process exited (or was OOM-killed: reason 'OOMKilled'). */
  exitContainer(id: string, exitCode: number, opts: { reason?: string; message?: string } = {}): void {
    const c = this.containerMap.get(id);
    if (c?.state !== 'RUNNING') throw new Error(`fake runtime: container ${id} is not running`);
    finishContainer(c, this.now(), exitCode, opts.reason, opts.message ?? '');
  }

  /** The live records (after settling exits); mutate only to stage unusual states. */
  sandboxes(): FakeSandbox[] {
    return [...this.sandboxMap.values()];
  }

  containers(): FakeContainer[] {
    this.settle();
    return [...this.containerMap.values()];
  }

  callsOf<M extends CriMethod>(method: M): Array<CriMethodArgs[M]> {
    return this.calls.filter((c) => c.method === method).map((c) => c.args as CriMethodArgs[M]);
  }

  // ---- RuntimeService ---------------------------------------------------------

  async version(signal?: AbortSignal): Promise<VersionInfo> {
    await this.enter('version', [], signal);
    return { version: '0.1.0', runtimeName: this.runtimeName, runtimeVersion: '0.0.0-fake', runtimeApiVersion: 'v1' };
  }

  async status(signal?: AbortSignal): Promise<RuntimeCondition[]> {
    await this.enter('status', [], signal);
    return [...this.conditions.values()].map((c) => ({ ...c }));
  }

  async runPodSandbox(config: PodSandboxConfig, runtimeHandler: string, signal?: AbortSignal): Promise<string> {
    await this.enter('runPodSandbox', [config, runtimeHandler], signal);
    const m = config.metadata;
    for (const s of this.sandboxMap.values()) {
      const o = s.config.metadata;
      if (o.name === m.name && o.namespace === m.namespace && o.uid === m.uid && o.attempt === m.attempt) {
        throw new CriError('ALREADY_EXISTS', `failed to reserve sandbox name "${m.name}_${m.namespace}_${m.uid}_${m.attempt}": name is reserved for "${s.id}"`);
      }
    }
    const n = ++this.seq;
    const id = `sandbox-${n}`;
    const hostNetwork = config.linux.securityContext.namespaceOptions.network === 'NODE';
    this.sandboxMap.set(id, { id, config: structuredClone(config), runtimeHandler, state: 'READY', createdAt: this.now(), ip: hostNetwork ? '' : `10.88.${(n >> 8) & 255}.${n & 255}` });
    return id;
  }

  async stopPodSandbox(id: string, signal?: AbortSignal): Promise<void> {
    await this.enter('stopPodSandbox', [id], signal);
    const s = this.sandbox(id);
    this.stopSandbox(s);
  }

  async removePodSandbox(id: string, signal?: AbortSignal): Promise<void> {
    await this.enter('removePodSandbox', [id], signal);
    const s = this.sandboxMap.get(id);
    if (s === undefined) return; // idempotent
    this.stopSandbox(s);
    for (const c of [...this.containerMap.values()]) if (c.podSandboxId === id) this.containerMap.delete(c.id);
    this.sandboxMap.delete(id);
  }

  async podSandboxStatus(id: string, signal?: AbortSignal): Promise<PodSandboxStatus> {
    await this.enter('podSandboxStatus', [id], signal);
    const s = this.sandbox(id);
    return { ...sandboxView(s), ip: s.ip, additionalIps: [], namespaceOptions: { ...s.config.linux.securityContext.namespaceOptions } };
  }

  async listPodSandbox(filter?: SandboxFilter, signal?: AbortSignal): Promise<PodSandbox[]> {
    await this.enter('listPodSandbox', [filter], signal);
    return [...this.sandboxMap.values()]
      .filter((s) => (filter?.id === undefined || s.id === filter.id) && (filter?.state === undefined || s.state === filter.state) && labelsMatch(s.config.labels, filter?.labelSelector))
      .map(sandboxView);
  }

  async createContainer(podSandboxId: string, config: ContainerConfig, sandboxConfig: PodSandboxConfig, signal?: AbortSignal): Promise<string> {
    await this.enter('createContainer', [podSandboxId, config, sandboxConfig], signal);
    const s = this.sandbox(podSandboxId);
    if (s.state !== 'READY') throw new CriError('FAILED_PRECONDITION', `sandbox "${podSandboxId}" is not ready`);
    const img = this.images.find(config.image);
    if (img === undefined) throw new CriError('NOT_FOUND', `failed to get image "${config.image}": not found`);
    for (const c of this.containerMap.values()) {
      if (c.podSandboxId === podSandboxId && c.config.metadata.name === config.metadata.name && c.config.metadata.attempt === config.metadata.attempt) {
        throw new CriError('ALREADY_EXISTS', `failed to reserve container name "${config.metadata.name}_${config.metadata.attempt}" in sandbox "${podSandboxId}": name is reserved for "${c.id}"`);
      }
    }
    const id = `container-${++this.seq}`;
    this.containerMap.set(id, {
      id, podSandboxId, config: structuredClone(config), imageRef: img.id, state: 'CREATED', createdAt: this.now(),
      startedAt: 0n, finishedAt: 0n, exitCode: 0, reason: '', message: '', process: {},
    });
    return id;
  }

  async startContainer(id: string, signal?: AbortSignal): Promise<void> {
    await this.enter('startContainer', [id], signal);
    const c = this.container(id);
    if (c.state !== 'CREATED') throw new CriError('FAILED_PRECONDITION', `container "${id}" is in CONTAINER_${c.state} state`);
    if (this.sandbox(c.podSandboxId).state !== 'READY') throw new CriError('FAILED_PRECONDITION', `sandbox "${c.podSandboxId}" is not ready`);
    const p = this.program(c.config, { containerId: id, podSandboxId: c.podSandboxId }) ?? {};
    c.process = { ...p };
    const now = this.now();
    if (p.startError !== undefined) {
      c.state = 'EXITED';
      c.startedAt = now;
      finishContainer(c, now, 128, 'StartError', p.startError);
      throw new CriError('UNKNOWN', `failed to start container "${id}": ${p.startError}`);
    }
    c.state = 'RUNNING';
    c.startedAt = now;
  }

  async stopContainer(id: string, timeoutSeconds: number, signal?: AbortSignal): Promise<void> {
    await this.enter('stopContainer', [id, timeoutSeconds], signal);
    const c = this.container(id);
    if (c.state === 'RUNNING') finishContainer(c, this.now(), timeoutSeconds <= 0 ? 137 : (c.process.stopExitCode ?? 143));
  }

  async removeContainer(id: string, signal?: AbortSignal): Promise<void> {
    await this.enter('removeContainer', [id], signal);
    this.containerMap.delete(id); // a running one is killed first; nothing observable remains either way
  }

  async listContainers(filter?: ContainerFilter, signal?: AbortSignal): Promise<Container[]> {
    await this.enter('listContainers', [filter], signal);
    return [...this.containerMap.values()]
      .filter(
        (c) =>
          (filter?.id === undefined || c.id === filter.id) &&
          (filter?.podSandboxId === undefined || c.podSandboxId === filter.podSandboxId) &&
          (filter?.state === undefined || c.state === filter.state) &&
          labelsMatch(c.config.labels, filter?.labelSelector),
      )
      .map((c) => ({ ...containerBase(c), podSandboxId: c.podSandboxId }));
  }

  async containerStatus(id: string, signal?: AbortSignal): Promise<ContainerStatus> {
    await this.enter('containerStatus', [id], signal);
    const c = this.container(id);
    const dir = this.sandboxMap.get(c.podSandboxId)?.config.logDirectory ?? '';
    const logPath = dir !== '' && c.config.logPath !== '' ? `${dir.replace(/\/+$/, '')}/${c.config.logPath}` : c.config.logPath;
    return { ...containerBase(c), startedAt: c.startedAt, finishedAt: c.finishedAt, exitCode: c.exitCode, reason: c.reason, message: c.message, logPath };
  }

  async execSync(id: string, cmd: readonly string[], timeoutSeconds: number, signal?: AbortSignal): Promise<ExecSyncResult> {
    await this.enter('execSync', [id, cmd, timeoutSeconds], signal);
    const c = this.container(id);
    // containerd refuses an exec in a container that is not running.
    if (c.state !== 'RUNNING') throw new CriError('FAILED_PRECONDITION', `container ${id} is not running`);
    const r = await this.execHandler(cmd, { containerId: id, config: c.config, timeoutSeconds });
    signal?.throwIfAborted();
    return { stdout: r.stdout ?? Buffer.alloc(0), stderr: r.stderr ?? Buffer.alloc(0), exitCode: r.exitCode ?? 0 };
  }

  async reopenContainerLog(id: string, signal?: AbortSignal): Promise<void> {
    await this.enter('reopenContainerLog', [id], signal);
    const c = this.container(id);
    if (c.state !== 'RUNNING') throw new CriError('FAILED_PRECONDITION', `container is not running`);
  }

  // ---- ImageService -----------------------------------------------------------

  async pullImage(image: string, auth: AuthConfig | undefined, sandboxConfig: PodSandboxConfig | undefined, signal?: AbortSignal): Promise<string> {
    await this.enter('pullImage', [image, auth, sandboxConfig], signal);
    return this.images.pull(image, auth, signal);
  }

  async imageStatus(image: string, signal?: AbortSignal): Promise<Image | undefined> {
    await this.enter('imageStatus', [image], signal);
    const img = this.images.find(image);
    return img === undefined ? undefined : copyImage(img);
  }

  async listImages(signal?: AbortSignal): Promise<Image[]> {
    await this.enter('listImages', [], signal);
    return this.images.list();
  }

  async removeImage(image: string, signal?: AbortSignal): Promise<void> {
    await this.enter('removeImage', [image], signal);
    this.images.remove(image);
  }

  async imageFsInfo(signal?: AbortSignal): Promise<FilesystemUsage[]> {
    await this.enter('imageFsInfo', [], signal);
    return [{ mountpoint: '/var/lib/fake-runtime/images', ...this.images.fsUsage() }];
  }

  // ---- issue 18 D: streaming ----------------------------------------------------

  setOnStream(stream: FakeStream): void {
    this.streamHandler = stream;
  }

  async exec(req: ExecRequest, signal?: AbortSignal): Promise<string> {
    await this.enter('exec', [req], signal);
    this.runningContainer(req.containerId);
    const bad = execRequestError(req);
    if (bad !== undefined) throw new CriError('INVALID_ARGUMENT', bad);
    return this.streamHandler({ kind: 'exec', req: structuredClone(req) });
  }

  async attach(req: AttachRequest, signal?: AbortSignal): Promise<string> {
    await this.enter('attach', [req], signal);
    this.runningContainer(req.containerId);
    const bad = execRequestError({ ...req, cmd: ['attach'] });
    if (bad !== undefined) throw new CriError('INVALID_ARGUMENT', bad);
    return this.streamHandler({ kind: 'attach', req: structuredClone(req) });
  }

  async portForward(req: PortForwardRequest, signal?: AbortSignal): Promise<string> {
    await this.enter('portForward', [req], signal);
    const s = this.sandbox(req.podSandboxId);
    if (s.state !== 'READY') throw new CriError('FAILED_PRECONDITION', `sandbox ${req.podSandboxId} is not ready`);
    return this.streamHandler({ kind: 'portForward', req: structuredClone(req) });
  }

  private runningContainer(id: string): void {
    if (this.container(id).state !== 'RUNNING') throw new CriError('FAILED_PRECONDITION', `container ${id} is not running`);
  }

  // ---- internals ----------------------------------------------------------------

  /** Every method's entry: the faults first (they may reject or hold the call), then container exits settle. */
  private async enter(method: CriMethod, args: unknown[], signal: AbortSignal | undefined): Promise<void> {
    await this.faults.enter(method, args, signal);
    this.settle();
  }

  private settle(): void {
    settleContainers(this.containerMap.values(), this.now());
  }

  private stopSandbox(s: FakeSandbox): void {
    this.settle();
    for (const c of this.containerMap.values()) {
      if (c.podSandboxId === s.id && c.state === 'RUNNING') finishContainer(c, this.now(), 137);
    }
    s.state = 'NOTREADY';
  }

  private sandbox(id: string): FakeSandbox {
    const s = this.sandboxMap.get(id);
    if (s === undefined) throw new CriError('NOT_FOUND', `an error occurred when try to find sandbox "${id}": not found`);
    return s;
  }

  private container(id: string): FakeContainer {
    const c = this.containerMap.get(id);
    if (c === undefined) throw new CriError('NOT_FOUND', `an error occurred when try to find container "${id}": not found`);
    return c;
  }
  // ---- issue 18 F: stats ------------------------------------------------------------

  /** What the stats calls report per container: `fake.stats.set(containerId, usage)`. */
  readonly stats = new FakeStatsTable();

  async listContainerStats(filter?: ContainerStatsFilter, signal?: AbortSignal): Promise<ContainerStats[]> {
    await this.enter('listContainerStats', [filter], signal);
    return this.stats.listContainers(this.containerMap.values(), filter, this.now());
  }

  async listPodSandboxStats(filter?: PodSandboxStatsFilter, signal?: AbortSignal): Promise<PodSandboxStats[]> {
    await this.enter('listPodSandboxStats', [filter], signal);
    return this.stats.listSandboxes(this.sandboxMap.values(), this.containerMap.values(), filter, this.now());
  }
}

