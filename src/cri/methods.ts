// One table of the CRI methods the agent calls: for each Runtime method, the
// gRPC service and rpc it maps to, and how its arguments and result travel
// (domain -> request -> domain on the way in, domain -> response -> domain on
// the way back). The client uses the encode/decode halves it needs, the test
// server the others, so one table keeps both sides in step.

import {
  decodeAuth,
  decodeContainerConfig,
  decodeContainerFilter,
  decodeSandboxConfig,
  decodeSandboxFilter,
  encodeAuth,
  encodeContainerConfig,
  encodeContainerFilter,
  encodeSandboxConfig,
  encodeSandboxFilter,
  fromInt64,
  toInt64,
} from './convert-config.js';
import {
  decodeCondition,
  decodeContainer,
  decodeContainerStatus,
  decodeFilesystemUsage,
  decodeImage,
  decodePodSandbox,
  decodePodSandboxStatus,
  decodeVersion,
  encodeCondition,
  encodeContainer,
  encodeContainerStatus,
  encodeFilesystemUsage,
  encodeImage,
  encodePodSandbox,
  encodePodSandboxStatus,
  encodeVersion,
} from './convert-status.js';
import type {
  AttachRequest,
  AuthConfig,
  ExecRequest,
  PortForwardRequest,
  ContainerConfig,
  ContainerFilter,
  PodSandboxConfig,
  Runtime,
  SandboxFilter,
} from './types.js';
import {
  decodeContainerStats,
  decodeContainerStatsFilter,
  decodePodSandboxStats,
  decodePodSandboxStatsFilter,
  encodeContainerStats,
  encodeContainerStatsFilter,
  encodePodSandboxStats,
  encodePodSandboxStatsFilter,
} from './convert-stats.js';
import type { ContainerStatsFilter, PodSandboxStatsFilter } from './types.js';
import type * as W from './wire.js';

/** The CRI API version the agent asks for in the Version handshake. */
export const CRI_API_VERSION = 'v1';

/** The arguments of each Runtime method, without the trailing AbortSignal. */
export interface CriMethodArgs {
  version: [];
  status: [];
  runPodSandbox: [config: PodSandboxConfig, runtimeHandler: string];
  stopPodSandbox: [id: string];
  removePodSandbox: [id: string];
  podSandboxStatus: [id: string];
  listPodSandbox: [filter?: SandboxFilter];
  createContainer: [podSandboxId: string, config: ContainerConfig, sandboxConfig: PodSandboxConfig];
  startContainer: [id: string];
  stopContainer: [id: string, timeoutSeconds: number];
  removeContainer: [id: string];
  listContainers: [filter?: ContainerFilter];
  containerStatus: [id: string];
  execSync: [id: string, cmd: readonly string[], timeoutSeconds: number];
  reopenContainerLog: [id: string];
  pullImage: [image: string, auth: AuthConfig | undefined, sandboxConfig: PodSandboxConfig | undefined];
  imageStatus: [image: string];
  listImages: [];
  removeImage: [image: string];
  imageFsInfo: [];
  // issue 18 F: stats
  listContainerStats: [filter?: ContainerStatsFilter];
  listPodSandboxStats: [filter?: PodSandboxStatsFilter];
  // issue 18 D: streaming
  exec: [req: ExecRequest];
  attach: [req: AttachRequest];
  portForward: [req: PortForwardRequest];
}

export type CriMethod = keyof CriMethodArgs & keyof Runtime;
export type CriResult<M extends CriMethod> = Awaited<ReturnType<Runtime[M]>>;
export type CriService = 'RuntimeService' | 'ImageService';

/** Wire objects are plain protobufjs objects; their shapes are in wire.ts. */
export interface MethodCodec<M extends CriMethod> {
  readonly service: CriService;
  /** The rpc name; its messages are `${rpc}Request` and `${rpc}Response`. */
  readonly rpc: string;
  encodeRequest(args: CriMethodArgs[M]): object;
  decodeRequest(req: object): CriMethodArgs[M];
  encodeResponse(result: CriResult<M>): object;
  decodeResponse(res: object): CriResult<M>;
  /**
   * For a list answer: the response's repeated field, its entry message, the
   * entry's state field and its wire -> domain conversion, so the client can
   * decode entry by entry and reuse unchanged ones (list-memo.ts).
   * decodeResponse gives the same result.
   */
  readonly listEntries?: { field: number; item: string; stateField: number; convert: (wire: never) => object };
}

function codec<M extends CriMethod, Req extends object, Res extends object>(
  service: CriService,
  rpc: string,
  c: {
    encodeRequest(args: CriMethodArgs[M]): Req;
    decodeRequest(req: Req): CriMethodArgs[M];
    encodeResponse(result: CriResult<M>): Res;
    decodeResponse(res: Res): CriResult<M>;
  },
  listEntries?: MethodCodec<M>['listEntries'],
): MethodCodec<M> {
  // The wire objects come from protobufjs decoding with WIRE_DECODE_OPTIONS, which yields exactly Req / Res.
  return { service, rpc, ...(c as unknown as Pick<MethodCodec<M>, 'encodeRequest' | 'decodeRequest' | 'encodeResponse' | 'decodeResponse'>), ...(listEntries ? { listEntries } : {}) };
}

const imageSpec = (image: string): W.WImageSpec => ({ image, annotations: {} });
const empty = (): Record<string, never> => ({});

export const METHODS: { readonly [M in CriMethod]: MethodCodec<M> } = {
  version: codec<'version', { version: string }, W.WVersionResponse>('RuntimeService', 'Version', {
    encodeRequest: () => ({ version: CRI_API_VERSION }),
    decodeRequest: () => [],
    encodeResponse: encodeVersion,
    decodeResponse: decodeVersion,
  }),
  status: codec<'status', { verbose: boolean }, { status: { conditions: W.WRuntimeCondition[] } | null }>('RuntimeService', 'Status', {
    encodeRequest: () => ({ verbose: false }),
    decodeRequest: () => [],
    encodeResponse: (conds) => ({ status: { conditions: conds.map(encodeCondition) } }),
    decodeResponse: (res) => (res.status?.conditions ?? []).map(decodeCondition),
  }),
  runPodSandbox: codec<'runPodSandbox', { config: W.WPodSandboxConfig | null; runtimeHandler: string }, { podSandboxId: string }>('RuntimeService', 'RunPodSandbox', {
    encodeRequest: ([config, runtimeHandler]) => ({ config: encodeSandboxConfig(config), runtimeHandler }),
    decodeRequest: (req) => [decodeSandboxConfig(req.config ?? NULL_SANDBOX_CONFIG), req.runtimeHandler],
    encodeResponse: (podSandboxId) => ({ podSandboxId }),
    decodeResponse: (res) => res.podSandboxId,
  }),
  stopPodSandbox: codec<'stopPodSandbox', { podSandboxId: string }, object>('RuntimeService', 'StopPodSandbox', {
    encodeRequest: ([podSandboxId]) => ({ podSandboxId }),
    decodeRequest: (req) => [req.podSandboxId],
    encodeResponse: empty,
    decodeResponse: () => undefined,
  }),
  removePodSandbox: codec<'removePodSandbox', { podSandboxId: string }, object>('RuntimeService', 'RemovePodSandbox', {
    encodeRequest: ([podSandboxId]) => ({ podSandboxId }),
    decodeRequest: (req) => [req.podSandboxId],
    encodeResponse: empty,
    decodeResponse: () => undefined,
  }),
  podSandboxStatus: codec<'podSandboxStatus', { podSandboxId: string; verbose: boolean }, { status: W.WPodSandboxStatus | null }>('RuntimeService', 'PodSandboxStatus', {
    encodeRequest: ([podSandboxId]) => ({ podSandboxId, verbose: false }),
    decodeRequest: (req) => [req.podSandboxId],
    encodeResponse: (s) => ({ status: encodePodSandboxStatus(s) }),
    decodeResponse: (res) => decodePodSandboxStatus(res.status ?? NULL_SANDBOX_STATUS),
  }),
  listPodSandbox: codec<'listPodSandbox', { filter: W.WPodSandboxFilter | null }, { items: W.WPodSandbox[] }>('RuntimeService', 'ListPodSandbox', {
    encodeRequest: ([filter]) => ({ filter: encodeSandboxFilter(filter) }),
    decodeRequest: (req) => [decodeSandboxFilter(req.filter)],
    encodeResponse: (items) => ({ items: items.map(encodePodSandbox) }),
    decodeResponse: (res) => res.items.map(decodePodSandbox),
  }, { field: 1, item: 'PodSandbox', stateField: 3, convert: decodePodSandbox }),
  createContainer: codec<
    'createContainer',
    { podSandboxId: string; config: W.WContainerConfig | null; sandboxConfig: W.WPodSandboxConfig | null },
    { containerId: string }
  >('RuntimeService', 'CreateContainer', {
    encodeRequest: ([podSandboxId, config, sandboxConfig]) => ({ podSandboxId, config: encodeContainerConfig(config), sandboxConfig: encodeSandboxConfig(sandboxConfig) }),
    decodeRequest: (req) => [
      req.podSandboxId,
      decodeContainerConfig(req.config ?? NULL_CONTAINER_CONFIG),
      decodeSandboxConfig(req.sandboxConfig ?? NULL_SANDBOX_CONFIG),
    ],
    encodeResponse: (containerId) => ({ containerId }),
    decodeResponse: (res) => res.containerId,
  }),
  startContainer: codec<'startContainer', { containerId: string }, object>('RuntimeService', 'StartContainer', {
    encodeRequest: ([containerId]) => ({ containerId }),
    decodeRequest: (req) => [req.containerId],
    encodeResponse: empty,
    decodeResponse: () => undefined,
  }),
  stopContainer: codec<'stopContainer', { containerId: string; timeout: bigint }, object>('RuntimeService', 'StopContainer', {
    encodeRequest: ([containerId, timeoutSeconds]) => ({ containerId, timeout: toInt64(timeoutSeconds, 'stop timeout') }),
    decodeRequest: (req) => [req.containerId, fromInt64(req.timeout)],
    encodeResponse: empty,
    decodeResponse: () => undefined,
  }),
  removeContainer: codec<'removeContainer', { containerId: string }, object>('RuntimeService', 'RemoveContainer', {
    encodeRequest: ([containerId]) => ({ containerId }),
    decodeRequest: (req) => [req.containerId],
    encodeResponse: empty,
    decodeResponse: () => undefined,
  }),
  listContainers: codec<'listContainers', { filter: W.WContainerFilter | null }, { containers: W.WContainer[] }>('RuntimeService', 'ListContainers', {
    encodeRequest: ([filter]) => ({ filter: encodeContainerFilter(filter) }),
    decodeRequest: (req) => [decodeContainerFilter(req.filter)],
    encodeResponse: (cs) => ({ containers: cs.map(encodeContainer) }),
    decodeResponse: (res) => res.containers.map(decodeContainer),
  }, { field: 1, item: 'Container', stateField: 6, convert: decodeContainer }),
  containerStatus: codec<'containerStatus', { containerId: string; verbose: boolean }, { status: W.WContainerStatus | null }>('RuntimeService', 'ContainerStatus', {
    encodeRequest: ([containerId]) => ({ containerId, verbose: false }),
    decodeRequest: (req) => [req.containerId],
    encodeResponse: (s) => ({ status: encodeContainerStatus(s) }),
    decodeResponse: (res) => decodeContainerStatus(res.status ?? NULL_CONTAINER_STATUS),
  }),
  execSync: codec<'execSync', { containerId: string; cmd: string[]; timeout: bigint }, { stdout: Uint8Array; stderr: Uint8Array; exitCode: number }>('RuntimeService', 'ExecSync', {
    encodeRequest: ([containerId, cmd, timeoutSeconds]) => ({ containerId, cmd: [...cmd], timeout: toInt64(timeoutSeconds, 'exec timeout') }),
    decodeRequest: (req) => [req.containerId, req.cmd, fromInt64(req.timeout)],
    encodeResponse: (r) => ({ stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode }),
    decodeResponse: (res) => ({ stdout: Buffer.from(res.stdout), stderr: Buffer.from(res.stderr), exitCode: res.exitCode }),
  }),
  reopenContainerLog: codec<'reopenContainerLog', { containerId: string }, object>('RuntimeService', 'ReopenContainerLog', {
    encodeRequest: ([containerId]) => ({ containerId }),
    decodeRequest: (req) => [req.containerId],
    encodeResponse: empty,
    decodeResponse: () => undefined,
  }),
  pullImage: codec<
    'pullImage',
    { image: W.WImageSpec | null; auth: W.WAuthConfig | null; sandboxConfig: W.WPodSandboxConfig | null },
    { imageRef: string }
  >('ImageService', 'PullImage', {
    encodeRequest: ([image, auth, sandboxConfig]) => ({
      image: imageSpec(image),
      auth: encodeAuth(auth),
      sandboxConfig: sandboxConfig === undefined ? null : encodeSandboxConfig(sandboxConfig),
    }),
    decodeRequest: (req) => [req.image?.image ?? '', decodeAuth(req.auth), req.sandboxConfig === null ? undefined : decodeSandboxConfig(req.sandboxConfig)],
    encodeResponse: (imageRef) => ({ imageRef }),
    decodeResponse: (res) => res.imageRef,
  }),
  imageStatus: codec<'imageStatus', { image: W.WImageSpec | null; verbose: boolean }, { image: W.WImage | null }>('ImageService', 'ImageStatus', {
    encodeRequest: ([image]) => ({ image: imageSpec(image), verbose: false }),
    decodeRequest: (req) => [req.image?.image ?? ''],
    encodeResponse: (img) => ({ image: img === undefined ? null : encodeImage(img) }),
    // A runtime reports a missing image as an absent (or, some runtimes, empty) image.
    decodeResponse: (res) => (res.image === null || res.image.id === '' ? undefined : decodeImage(res.image)),
  }),
  listImages: codec<'listImages', object, { images: W.WImage[] }>('ImageService', 'ListImages', {
    encodeRequest: empty,
    decodeRequest: () => [],
    encodeResponse: (imgs) => ({ images: imgs.map(encodeImage) }),
    decodeResponse: (res) => res.images.map(decodeImage),
  }),
  removeImage: codec<'removeImage', { image: W.WImageSpec | null }, object>('ImageService', 'RemoveImage', {
    encodeRequest: ([image]) => ({ image: imageSpec(image) }),
    decodeRequest: (req) => [req.image?.image ?? ''],
    encodeResponse: empty,
    decodeResponse: () => undefined,
  }),
  imageFsInfo: codec<'imageFsInfo', object, { imageFilesystems: W.WFilesystemUsage[] }>('ImageService', 'ImageFsInfo', {
    encodeRequest: empty,
    decodeRequest: () => [],
    encodeResponse: (fss) => {
      const now = BigInt(Date.now()) * 1_000_000n;
      return { imageFilesystems: fss.map((f) => encodeFilesystemUsage(f, now)) };
    },
    decodeResponse: (res) => res.imageFilesystems.map(decodeFilesystemUsage),
  }),
  // issue 18 F: stats
  listContainerStats: codec<'listContainerStats', { filter: W.WContainerStatsFilter | null }, { stats: W.WContainerStats[] }>('RuntimeService', 'ListContainerStats', {
    encodeRequest: ([filter]) => ({ filter: encodeContainerStatsFilter(filter) }),
    decodeRequest: (req) => [decodeContainerStatsFilter(req.filter)],
    encodeResponse: (stats) => ({ stats: stats.map(encodeContainerStats) }),
    decodeResponse: (res) => res.stats.map(decodeContainerStats),
  }),
  listPodSandboxStats: codec<'listPodSandboxStats', { filter: W.WPodSandboxStatsFilter | null }, { stats: W.WPodSandboxStats[] }>('RuntimeService', 'ListPodSandboxStats', {
    encodeRequest: ([filter]) => ({ filter: encodePodSandboxStatsFilter(filter) }),
    decodeRequest: (req) => [decodePodSandboxStatsFilter(req.filter)],
    encodeResponse: (stats) => ({ stats: stats.map(encodePodSandboxStats) }),
    decodeResponse: (res) => res.stats.map(decodePodSandboxStats),
  }),
  // issue 18 D: streaming
  exec: codec<'exec', ExecRequest, { url: string }>('RuntimeService', 'Exec', {
    encodeRequest: ([req]) => ({ ...req, cmd: [...req.cmd] }),
    decodeRequest: (req) => [{ containerId: req.containerId, cmd: [...req.cmd], tty: req.tty, stdin: req.stdin, stdout: req.stdout, stderr: req.stderr }],
    encodeResponse: (url) => ({ url }),
    decodeResponse: (res) => res.url,
  }),
  attach: codec<'attach', AttachRequest, { url: string }>('RuntimeService', 'Attach', {
    encodeRequest: ([req]) => ({ ...req }),
    decodeRequest: (req) => [{ containerId: req.containerId, stdin: req.stdin, tty: req.tty, stdout: req.stdout, stderr: req.stderr }],
    encodeResponse: (url) => ({ url }),
    decodeResponse: (res) => res.url,
  }),
  portForward: codec<'portForward', PortForwardRequest, { url: string }>('RuntimeService', 'PortForward', {
    encodeRequest: ([req]) => ({ podSandboxId: req.podSandboxId, port: [...req.port] }),
    decodeRequest: (req) => [{ podSandboxId: req.podSandboxId, port: [...req.port] }],
    encodeResponse: (url) => ({ url }),
    decodeResponse: (res) => res.url,
  }),
};

export const CRI_METHODS = Object.keys(METHODS) as CriMethod[];

// Absent top-level messages decode like empty ones (proto3 semantics).
const NULL_SANDBOX_CONFIG: W.WPodSandboxConfig = {
  metadata: null, hostname: '', logDirectory: '', dnsConfig: null, portMappings: [], labels: {}, annotations: {}, linux: null,
};
const NULL_CONTAINER_CONFIG: W.WContainerConfig = {
  metadata: null, image: null, command: [], args: [], workingDir: '', envs: [], mounts: [], labels: {}, annotations: {},
  logPath: '', stdin: false, stdinOnce: false, tty: false, linux: null,
};
const NULL_SANDBOX_STATUS: W.WPodSandboxStatus = {
  id: '', metadata: null, state: 'SANDBOX_NOTREADY', createdAt: 0n, labels: {}, annotations: {}, runtimeHandler: '', network: null, linux: null,
};
const NULL_CONTAINER_STATUS: W.WContainerStatus = {
  id: '', metadata: null, state: 'CONTAINER_UNKNOWN', createdAt: 0n, startedAt: 0n, finishedAt: 0n, exitCode: 0, image: null,
  imageRef: '', reason: '', message: '', labels: {}, annotations: {}, logPath: '',
};
