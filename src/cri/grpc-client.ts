// The Runtime over CRI gRPC. createCriRuntime() loads grpc-js and the proto
// (lazily: only this path pays for them), opens a channel per distinct
// endpoint, checks that the runtime serves runtime.v1, and returns the client.
//
// Deadlines, as the kubelet sets them: every call gets --runtime-request-timeout
// except PullImage (none: a pull takes what it takes; cancel it with the
// signal) and StopContainer (the timeout plus the stop grace period, so the
// runtime can SIGKILL and report before the call gives up). A caller's
// AbortSignal cancels any call.

import { AgentError } from '../errors.js';
import { parseEndpoint, type ParsedEndpoint } from './endpoint.js';
import { isCriError, isTransient, isUnimplemented, unreachableHint } from './errors.js';
import { Connection, type CriLog } from './grpc-connection.js';
import { METHODS } from './methods.js';
import { loadCriProto } from './proto.js';
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
import type { ContainerStats, ContainerStatsFilter, PodSandboxStats, PodSandboxStatsFilter } from './types.js';

export type { CriLog } from './grpc-connection.js';

/** How long creation waits for an absent or restarting runtime before giving up. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

export interface CriRuntimeOptions {
  /** `--container-runtime-endpoint`: `unix:///path` or `tcp://host:port`. */
  runtimeEndpoint: string;
  /** `--image-service-endpoint`; '' or absent: the runtime endpoint. */
  imageEndpoint?: string;
  /** `--runtime-request-timeout`, > 0. */
  requestTimeoutMs: number;
  /** How long the start-up handshake waits for the runtime to answer; default DEFAULT_CONNECT_TIMEOUT_MS. */
  connectTimeoutMs?: number;
  log: CriLog;
  /** Aborts the start-up wait (creation then rejects with its reason). */
  signal?: AbortSignal;
}

export interface CriRuntime extends Runtime {
  /** What the runtime answered to the start-up Version call. */
  readonly runtimeInfo: VersionInfo;
  /** Closes the channels. Calls in flight fail; later calls reject with a CANCELLED CriError. Idempotent. */
  close(): void;
}

/**
 * Connects to the runtime (and image service) and returns the client once the
 * runtime has answered Version. Waits up to `connectTimeoutMs` while the
 * runtime is unreachable; rejects with an ESTARTUP AgentError if it stays
 * unreachable or does not serve CRI runtime.v1, and with EVALUE for a malformed endpoint.
 */
export async function createCriRuntime(opts: CriRuntimeOptions): Promise<CriRuntime> {
  if (!(opts.requestTimeoutMs > 0 && Number.isFinite(opts.requestTimeoutMs))) {
    throw new AgentError('EVALUE', `runtime request timeout must be positive, got ${opts.requestTimeoutMs} ms`, { flag: '--runtime-request-timeout' });
  }
  const runtimeEp = parseEndpoint(opts.runtimeEndpoint, '--container-runtime-endpoint');
  const imageEp = opts.imageEndpoint === undefined || opts.imageEndpoint === '' ? runtimeEp : parseEndpoint(opts.imageEndpoint, '--image-service-endpoint');
  for (const ep of new Set([runtimeEp, imageEp])) {
    if (ep.deprecatedForm) opts.log.warn('Runtime endpoint without a scheme is deprecated; use the full URL', { endpoint: ep.endpoint, use: `unix://${ep.endpoint}` });
  }
  const [grpcModule, proto] = await Promise.all([import('@grpc/grpc-js'), loadCriProto()]);
  // CommonJS module: Node's ESM loader and esbuild both expose module.exports as `default`.
  const grpc: typeof grpcModule = (grpcModule as unknown as { default?: typeof grpcModule }).default ?? grpcModule;
  const runtimeConn = new Connection(grpc, proto, runtimeEp, opts.log);
  const imageConn = imageEp.target === runtimeEp.target ? runtimeConn : new Connection(grpc, proto, imageEp, opts.log);
  const closeAll = (): void => {
    runtimeConn.close();
    imageConn.close();
  };
  try {
    const connectTimeoutMs = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const [info] = await Promise.all([
      handshake(runtimeConn, 'version', opts, connectTimeoutMs),
      imageConn === runtimeConn ? undefined : handshake(imageConn, 'imageFsInfo', opts, connectTimeoutMs),
    ]);
    const runtimeInfo = info as VersionInfo;
    opts.log.info('Connected to the container runtime', {
      endpoint: runtimeEp.endpoint,
      ...(imageConn === runtimeConn ? {} : { imageEndpoint: imageEp.endpoint }),
      runtimeName: runtimeInfo.runtimeName,
      runtimeVersion: runtimeInfo.runtimeVersion,
      runtimeApiVersion: runtimeInfo.runtimeApiVersion,
    });
    return new GrpcRuntime(runtimeConn, imageConn, opts.requestTimeoutMs, runtimeInfo, closeAll);
  } catch (err) {
    closeAll();
    throw err;
  }
}

/**
 * Calls `method` (Version on the runtime endpoint, ImageFsInfo on a separate
 * image endpoint, as the kubelet validates them) until it answers, the
 * runtime proves not to serve runtime.v1, or `connectTimeoutMs` runs out.
 */
async function handshake(conn: Connection, method: 'version' | 'imageFsInfo', opts: CriRuntimeOptions, connectTimeoutMs: number): Promise<unknown> {
  const ep: ParsedEndpoint = conn.endpoint;
  const { service, rpc } = METHODS[method];
  const deadline = Date.now() + connectTimeoutMs;
  let announced = false;
  for (;;) {
    const remaining = deadline - Date.now();
    try {
      return await conn.call(method, [], Math.max(1, Math.min(opts.requestTimeoutMs, remaining)), opts.signal);
    } catch (err) {
      if (isAborted(opts.signal)) throw opts.signal?.reason;
      if (isUnimplemented(err)) {
        throw new AgentError(
          'ESTARTUP',
          `the container runtime at ${ep.endpoint} does not serve the CRI API runtime.v1 (${service}/${rpc} answered UNIMPLEMENTED); ` +
            'the agent needs a runtime that serves CRI runtime.v1 (for example containerd 1.6 or later)',
          { cause: err },
        );
      }
      const why = err instanceof Error ? err.message : String(err);
      const hint = isCriError(err) ? unreachableHint(err.details, ep.endpoint) : undefined;
      const giveUp = (timedOut: boolean): AgentError => {
        const waited = timedOut ? ` (gave up after ${connectTimeoutMs / 1000}s)` : '';
        return new AgentError('ESTARTUP', `cannot use the container runtime at ${ep.endpoint}${waited}: ${why}${hint === undefined ? '' : `; ${hint}`}`, { cause: err });
      };
      if (!isTransient(err)) throw giveUp(false);
      if (Date.now() >= deadline) throw giveUp(true);
      if (!announced) {
        announced = true;
        opts.log.info('Waiting for the container runtime', { endpoint: ep.endpoint, err: why, ...(hint === undefined ? {} : { hint }), timeoutMs: connectTimeoutMs });
      }
      const ready = await conn.waitForReady(deadline, opts.signal);
      if (isAborted(opts.signal)) throw opts.signal?.reason;
      // Not connected by the deadline: report the failure seen, not a clipped last attempt.
      if (!ready && Date.now() >= deadline) throw giveUp(true);
    }
  }
}

// A plain boolean, not a type guard: the signal can abort between two checks.
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

class GrpcRuntime implements CriRuntime {
  constructor(
    private readonly rt: Connection,
    private readonly img: Connection,
    private readonly timeoutMs: number,
    readonly runtimeInfo: VersionInfo,
    readonly close: () => void,
  ) {}

  version(signal?: AbortSignal): Promise<VersionInfo> {
    return this.rt.call('version', [], this.timeoutMs, signal);
  }
  status(signal?: AbortSignal): Promise<RuntimeCondition[]> {
    return this.rt.call('status', [], this.timeoutMs, signal);
  }
  runPodSandbox(config: PodSandboxConfig, runtimeHandler: string, signal?: AbortSignal): Promise<string> {
    return this.rt.call('runPodSandbox', [config, runtimeHandler], this.timeoutMs, signal);
  }
  stopPodSandbox(id: string, signal?: AbortSignal): Promise<void> {
    return this.rt.call('stopPodSandbox', [id], this.timeoutMs, signal);
  }
  removePodSandbox(id: string, signal?: AbortSignal): Promise<void> {
    return this.rt.call('removePodSandbox', [id], this.timeoutMs, signal);
  }
  podSandboxStatus(id: string, signal?: AbortSignal): Promise<PodSandboxStatus> {
    return this.rt.call('podSandboxStatus', [id], this.timeoutMs, signal);
  }
  listPodSandbox(filter?: SandboxFilter, signal?: AbortSignal): Promise<PodSandbox[]> {
    return this.rt.call('listPodSandbox', [filter], this.timeoutMs, signal);
  }
  createContainer(podSandboxId: string, config: ContainerConfig, sandboxConfig: PodSandboxConfig, signal?: AbortSignal): Promise<string> {
    return this.rt.call('createContainer', [podSandboxId, config, sandboxConfig], this.timeoutMs, signal);
  }
  startContainer(id: string, signal?: AbortSignal): Promise<void> {
    return this.rt.call('startContainer', [id], this.timeoutMs, signal);
  }
  stopContainer(id: string, timeoutSeconds: number, signal?: AbortSignal): Promise<void> {
    return this.rt.call('stopContainer', [id, timeoutSeconds], stopDeadlineMs(this.timeoutMs, timeoutSeconds), signal);
  }
  removeContainer(id: string, signal?: AbortSignal): Promise<void> {
    return this.rt.call('removeContainer', [id], this.timeoutMs, signal);
  }
  listContainers(filter?: ContainerFilter, signal?: AbortSignal): Promise<Container[]> {
    return this.rt.call('listContainers', [filter], this.timeoutMs, signal);
  }
  containerStatus(id: string, signal?: AbortSignal): Promise<ContainerStatus> {
    return this.rt.call('containerStatus', [id], this.timeoutMs, signal);
  }
  execSync(id: string, cmd: readonly string[], timeoutSeconds: number, signal?: AbortSignal): Promise<ExecSyncResult> {
    // As the kubelet: no deadline for an unbounded command; else the command's own timeout plus the request timeout.
    return this.rt.call('execSync', [id, cmd, timeoutSeconds], timeoutSeconds > 0 ? stopDeadlineMs(this.timeoutMs, timeoutSeconds) : undefined, signal);
  }
  reopenContainerLog(id: string, signal?: AbortSignal): Promise<void> {
    return this.rt.call('reopenContainerLog', [id], this.timeoutMs, signal);
  }
  pullImage(image: string, auth: AuthConfig | undefined, sandboxConfig: PodSandboxConfig | undefined, signal?: AbortSignal): Promise<string> {
    return this.img.call('pullImage', [image, auth, sandboxConfig], undefined, signal);
  }
  imageStatus(image: string, signal?: AbortSignal): Promise<Image | undefined> {
    return this.img.call('imageStatus', [image], this.timeoutMs, signal);
  }
  listImages(signal?: AbortSignal): Promise<Image[]> {
    return this.img.call('listImages', [], this.timeoutMs, signal);
  }
  removeImage(image: string, signal?: AbortSignal): Promise<void> {
    return this.img.call('removeImage', [image], this.timeoutMs, signal);
  }
  imageFsInfo(signal?: AbortSignal): Promise<FilesystemUsage[]> {
    return this.img.call('imageFsInfo', [], this.timeoutMs, signal);
  }
  // issue 18 F: stats
  listContainerStats(filter?: ContainerStatsFilter, signal?: AbortSignal): Promise<ContainerStats[]> {
    return this.rt.call('listContainerStats', [filter], this.timeoutMs, signal);
  }
  listPodSandboxStats(filter?: PodSandboxStatsFilter, signal?: AbortSignal): Promise<PodSandboxStats[]> {
    return this.rt.call('listPodSandboxStats', [filter], this.timeoutMs, signal);
  }
  // issue 18 D: streaming (the request timeout bounds preparing the stream, not the stream itself)
  exec(req: ExecRequest, signal?: AbortSignal): Promise<string> {
    return this.rt.call('exec', [req], this.timeoutMs, signal);
  }
  attach(req: AttachRequest, signal?: AbortSignal): Promise<string> {
    return this.rt.call('attach', [req], this.timeoutMs, signal);
  }
  portForward(req: PortForwardRequest, signal?: AbortSignal): Promise<string> {
    return this.rt.call('portForward', [req], this.timeoutMs, signal);
  }
}

/** StopContainer's deadline: the request timeout plus the grace period the runtime may use before SIGKILL. */
export function stopDeadlineMs(requestTimeoutMs: number, timeoutSeconds: number): number {
  return requestTimeoutMs + Math.max(0, timeoutSeconds) * 1000;
}
