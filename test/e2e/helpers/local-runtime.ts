// A REAL container runtime for end-to-end tests: a private containerd (Debian's
// 1.6) under a temporary directory, with the locally built images imported
// (localhost/busybox:latest, localhost/busybox:v2, localhost/pause:3.9), and
// private image registries on 127.0.0.1 (docker-registry, optional basic auth).
// Thin wrappers over packaging/local-runtime/*.sh, everything bounded in time.
//
//   const rt = await startLocalRuntime();          // beforeAll(…, 60_000)
//   … --container-runtime-endpoint=${rt.endpoint} …
//   await rt.ctr(['-n', 'k8s.io', 'containers', 'ls', '-q']);
//   await rt.stop();                                // afterAll; idempotent
//
// Every test file gets its own directory, socket and containerd, so files can
// run in parallel. Instances still alive when the test process exits are
// stopped from an exit hook; instances left by a killed test process are
// reaped by the next startLocalRuntime().
//
// Needs root and the Debian packages of packaging/local-runtime/install-deps.sh
// (`.ci/run` installs them); see localRuntimeUnavailable().
import { execFile, execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const LOCAL_RUNTIME_DIR = join(REPO, 'packaging/local-runtime');
const CONTAINERD_SH = join(LOCAL_RUNTIME_DIR, 'containerd.sh');
const REGISTRY_SH = join(LOCAL_RUNTIME_DIR, 'registry.sh');
const BUILD_IMAGES = join(LOCAL_RUNTIME_DIR, 'build-images.mjs');
/** Where the standard images are built (cached by content across runs). */
export const IMAGES_OUT = join(REPO, '.tmp/images');

/** The images every runtime from startLocalRuntime() has in namespace k8s.io. */
export const IMAGES = {
  busybox: 'localhost/busybox:latest',
  /** Same content plus /etc/variant: a different digest. */
  busyboxV2: 'localhost/busybox:v2',
  /** The CRI sandbox image (sandbox_image in the containerd config). */
  pause: 'localhost/pause:3.9',
} as const;

/** The CRI plugin's namespace: what the agent sees through CRI. */
export const CRI_NAMESPACE = 'k8s.io';

/** Standard image archives (OCI layout, uncompressed tar) in imagesDir(). */
export type ImageName = 'busybox' | 'busybox-v2' | 'pause';

const TMP_PREFIX_RUNTIME = 'agent-rt-';
const TMP_PREFIX_REGISTRY = 'agent-reg-';

// ---------------------------------------------------------------- processes

interface RunResult {
  stdout: string;
  stderr: string;
}

/** Runs a program with a deadline; rejects with its output when it fails. */
function run(file: string, args: readonly string[], timeoutMs: number, env?: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((res, rej) => {
    execFile(
      file,
      [...args],
      { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 64 << 20, env: env ?? process.env },
      (err, stdout, stderr) => {
        if (err) {
          const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: number | string };
          const why = e.killed ? `timed out after ${timeoutMs} ms` : `exit ${String(e.code)}`;
          rej(new Error(`${file} ${args.join(' ')}: ${why}\n--- stderr ---\n${stderr}--- stdout ---\n${stdout}`));
          return;
        }
        res({ stdout, stderr });
      },
    );
  });
}

/** Why the local runtime cannot run here, or undefined when it can. */
export function localRuntimeUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'not Linux';
  if (typeof process.getuid === 'function' && process.getuid() !== 0) return 'not root';
  for (const bin of ['/usr/bin/containerd', '/usr/bin/ctr', '/usr/sbin/runc', '/usr/lib/cni/bridge', '/bin/busybox', '/usr/bin/gcc']) {
    try {
      accessSync(bin, constants.X_OK);
    } catch {
      return `${bin} missing (run packaging/local-runtime/install-deps.sh)`;
    }
  }
  return undefined;
}

// ---------------------------------------------------------------- images

export interface ImageInfo {
  /** Absolute path of the OCI archive. */
  file: string;
  /** The name it imports as (io.containerd.image.name). */
  ref: string;
  /** Digest of the manifest as stored in the archive (a registry push re-compresses: see LocalRegistry.push). */
  manifestDigest: string;
  configDigest: string;
}

interface BuildSummary {
  key: string;
  images: Record<ImageName, { file: string; ref: string; manifestDigest: string; configDigest: string; layerDigest: string; size: number }>;
}

let imagesPromise: Promise<BuildSummary> | undefined;

function buildImages(): Promise<BuildSummary> {
  imagesPromise ??= run(process.execPath, [BUILD_IMAGES, '--out', IMAGES_OUT, '--json'], 120_000).then(
    (r) => JSON.parse(r.stdout) as BuildSummary,
    (e: unknown) => {
      imagesPromise = undefined;
      throw e;
    },
  );
  return imagesPromise;
}

/**
 * The directory of the standard image archives (busybox.tar, busybox-v2.tar,
 * pause.tar, all.tar, images.json). Built once per run; later calls and later
 * runs reuse it while the inputs (build script, pause.c, /bin/busybox, gcc) are unchanged.
 */
export async function imagesDir(): Promise<string> {
  await buildImages();
  return IMAGES_OUT;
}

/** One standard image archive and its digests. */
export async function imageArchive(name: ImageName): Promise<ImageInfo> {
  const s = await buildImages();
  const i = s.images[name];
  return { file: join(IMAGES_OUT, i.file), ref: i.ref, manifestDigest: i.manifestDigest, configDigest: i.configDigest };
}

/**
 * A busybox image `localhost/busybox:TAG` whose /etc/variant holds TAG: a
 * distinct digest per tag (for "the image changed" pull tests). Written to
 * `outFile` (default: under .tmp/images/variants/).
 */
export async function buildVariantImage(tag: string, outFile?: string): Promise<ImageInfo> {
  const file = outFile ?? join(IMAGES_OUT, 'variants', `busybox-${tag}.tar`);
  const r = await run(process.execPath, [BUILD_IMAGES, '--variant', tag, '--out', file, '--json'], 60_000);
  return JSON.parse(r.stdout) as ImageInfo;
}

// ---------------------------------------------------------------- containerd

export interface LocalRuntime {
  /** CRI endpoint for --container-runtime-endpoint: unix://DIR/containerd.sock */
  endpoint: string;
  /** The socket path (for ctr -a). */
  socket: string;
  /** The instance's directory (containerd.log is there). */
  dir: string;
  /** `ctr -a SOCKET ...args` (pass `-n k8s.io` yourself); resolves to stdout, rejects with stderr. */
  ctr(args: readonly string[], timeoutMs?: number): Promise<string>;
  /** SIGKILL containerd only (a crash): shims and containers live on. */
  kill(): Promise<void>;
  /** Start containerd again after kill() (it adopts the running shims); no-op when running. */
  start(): Promise<void>;
  /** Graceful SIGTERM + start: containers live on. */
  restart(): Promise<void>;
  /** The tail of containerd's log, for failure messages. */
  logTail(lines?: number): string;
  /**
   * Kill every sandbox/container (CRI teardown first, so CNI releases
   * addresses), stop containerd, unmount, remove the directory. Idempotent.
   */
  stop(): Promise<void>;
}

export interface StartRuntimeOptions {
  /** Use this directory instead of a fresh temporary one (kept after stop). */
  dir?: string;
  /**
   * Registry ports given a plain-http mirror entry in the CRI config. Loopback
   * registries on other ports work as well (containerd 1.6 uses http for
   * 127.0.0.1/localhost), after a failed https attempt. Default 5001, 5002.
   */
  registryPorts?: readonly number[];
  /** Deadline for start (default 60 s; the first image build is included). */
  timeoutMs?: number;
}

const liveRuntimes = new Map<string, { ownsDir: boolean }>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const [dir, { ownsDir }] of liveRuntimes) {
      try {
        execFileSync('bash', [CONTAINERD_SH, 'stop', dir], { stdio: 'ignore', timeout: 30_000 });
        if (ownsDir && mountsUnder(dir).length === 0) rmSync(dir, { recursive: true, force: true });
      } catch {
        // best effort: the next startLocalRuntime() reaps it
      }
    }
    for (const dir of liveRegistries) {
      try {
        execFileSync('bash', [REGISTRY_SH, 'stop', dir], { stdio: 'ignore', timeout: 10_000 });
        rmSync(dir, { recursive: true, force: true });
      } catch {
        // best effort
      }
    }
  });
}

/** Mount points at or below dir (from this process's mount table). */
function mountsUnder(dir: string): string[] {
  const out: string[] = [];
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const mp = line.split(' ')[4]?.replace(/\\040/g, ' ');
    if (mp && (mp === dir || mp.startsWith(`${dir}/`))) out.push(mp);
  }
  return out;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] !== 'Z';
  } catch {
    return false;
  }
}

/** Stops and removes runtime/registry directories whose test process is gone. */
async function reapStale(): Promise<void> {
  const base = tmpdir();
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return;
  }
  const jobs: Promise<unknown>[] = [];
  for (const name of names) {
    const isRt = name.startsWith(TMP_PREFIX_RUNTIME);
    if (!isRt && !name.startsWith(TMP_PREFIX_REGISTRY)) continue;
    const dir = join(base, name);
    let owner: number;
    try {
      owner = Number(readFileSync(join(dir, 'owner.pid'), 'utf8').trim());
    } catch {
      continue; // being created, or not ours
    }
    if (!Number.isInteger(owner) || owner <= 0 || owner === process.pid || pidAlive(owner)) continue;
    jobs.push(
      run('bash', [isRt ? CONTAINERD_SH : REGISTRY_SH, 'stop', dir], 60_000)
        .then(() => {
          if (mountsUnder(dir).length === 0) rmSync(dir, { recursive: true, force: true });
        })
        .catch(() => undefined),
    );
  }
  await Promise.all(jobs);
}

export async function startLocalRuntime(opts: StartRuntimeOptions = {}): Promise<LocalRuntime> {
  const unavailable = localRuntimeUnavailable();
  if (unavailable) throw new Error(`local runtime unavailable: ${unavailable}`);
  const timeoutMs = opts.timeoutMs ?? 60_000;
  await reapStale();
  const images = await imagesDir();
  const ownsDir = opts.dir === undefined;
  // short path: the socket path (+ ".ttrpc") must fit a sockaddr_un
  const dir = opts.dir ? resolve(opts.dir) : mkdtempSync(join(tmpdir(), TMP_PREFIX_RUNTIME));
  writeFileSync(join(dir, 'owner.pid'), `${process.pid}\n`);
  const ports = (opts.registryPorts ?? [5001, 5002]).join(' ');
  const socket = join(dir, 'containerd.sock');
  const startArgs = [CONTAINERD_SH, 'start', dir, '--images', images, '--registry-ports', ports];
  liveRuntimes.set(dir, { ownsDir });
  installExitHook();

  let stopping: Promise<void> | undefined;
  const rt: LocalRuntime = {
    endpoint: `unix://${socket}`,
    socket,
    dir,
    async ctr(args, ms = 30_000) {
      return (await run('ctr', ['-a', socket, ...args], ms)).stdout;
    },
    async kill() {
      await run('bash', [CONTAINERD_SH, 'kill', dir], 15_000);
    },
    async start() {
      await run('bash', startArgs, timeoutMs);
    },
    async restart() {
      await run('bash', [CONTAINERD_SH, 'restart', dir, '--images', images, '--registry-ports', ports], timeoutMs);
    },
    logTail(lines = 40) {
      try {
        return readFileSync(join(dir, 'containerd.log'), 'utf8').split('\n').slice(-lines - 1).join('\n');
      } catch {
        return '';
      }
    },
    stop() {
      stopping ??= (async () => {
        try {
          await run('bash', [CONTAINERD_SH, 'stop', dir], 90_000);
        } finally {
          liveRuntimes.delete(dir);
        }
        if (ownsDir) {
          const left = mountsUnder(dir);
          if (left.length) throw new Error(`local runtime stopped but still mounted under ${dir}: ${left.join(', ')}`);
          rmSync(dir, { recursive: true, force: true });
        }
      })();
      return stopping;
    },
  };
  try {
    await rt.start();
  } catch (e) {
    await rt.stop().catch(() => undefined);
    throw e;
  }
  return rt;
}

// ---------------------------------------------------------------- registry

export interface RegistryAuth {
  username: string;
  password: string;
}

export interface LocalRegistry {
  /** host:port, e.g. 127.0.0.1:5001 (plain http). */
  address: string;
  port: number;
  auth: RegistryAuth | undefined;
  dir: string;
  /**
   * Pushes an OCI archive (a path, or a standard image name) as ADDRESS/REF
   * (`ref` = "name:tag", no host). Resolves to the digest of the manifest as
   * the registry serves it (skopeo gzips the layer on the way, so it differs
   * from the archive's own digest).
   */
  push(image: string, ref: string): Promise<string>;
  /** ADDRESS/REF: the image reference a pod or ctr pull uses. */
  ref(ref: string): string;
  stop(): Promise<void>;
}

const liveRegistries = new Set<string>();

/** A free TCP port on 127.0.0.1 (bind to port 0, close). */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}

/**
 * Starts a registry on 127.0.0.1:PORT (default: a free port, so parallel test
 * files never collide; pass 5001/5002 to use the ports with mirror entries).
 */
export async function startRegistry(opts: { port?: number; auth?: RegistryAuth } = {}): Promise<LocalRegistry> {
  const unavailable = localRuntimeUnavailable();
  if (unavailable) throw new Error(`local registry unavailable: ${unavailable}`);
  if (!existsSync('/usr/bin/docker-registry') || !existsSync('/usr/bin/skopeo')) {
    throw new Error('docker-registry or skopeo missing (run packaging/local-runtime/install-deps.sh)');
  }
  const dir = mkdtempSync(join(tmpdir(), TMP_PREFIX_REGISTRY));
  writeFileSync(join(dir, 'owner.pid'), `${process.pid}\n`);
  liveRegistries.add(dir);
  installExitHook();
  const auth = opts.auth;
  let port = opts.port ?? (await freePort());
  const authArgs = auth ? ['--auth', `${auth.username}:${auth.password}`] : [];
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      try {
        await run('bash', [REGISTRY_SH, 'stop', dir], 15_000);
      } finally {
        liveRegistries.delete(dir);
      }
      rmSync(dir, { recursive: true, force: true });
    })();
    return stopping;
  };
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await run('bash', [REGISTRY_SH, 'start', dir, String(port), ...authArgs], 20_000);
        break;
      } catch (e) {
        // a chosen free port taken in between: try another
        if (opts.port !== undefined || attempt >= 3) throw e;
        port = await freePort();
      }
    }
  } catch (e) {
    await stop().catch(() => undefined);
    throw e;
  }
  const address = `127.0.0.1:${port}`;
  return {
    address,
    port,
    auth,
    dir,
    async push(image, ref) {
      const file =
        image === 'busybox' || image === 'busybox-v2' || image === 'pause' ? (await imageArchive(image)).file : resolve(image);
      const r = await run('bash', [REGISTRY_SH, 'push', dir, file, ref], 130_000);
      return r.stdout.trim();
    },
    ref: (ref) => `${address}/${ref}`,
    stop,
  };
}
