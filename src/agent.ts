// The composition root: builds the managers from the validated configuration
// and runs them under one AbortSignal. A wiring file: state lives in the
// managers. Later subsystems (pod sources, sync loop, CRI, eviction, GC, the
// 10250/10255 servers) are added to `components()` in dependency order.
import { access, writeFile } from 'node:fs/promises';
import { createLogging } from './log/index.js';
import type { AgentLogger } from './log/index.js';
import { acquireLock, installSignalHandlers, LivenessRegistry, runComponents, type Component, type HeldLock } from './lifecycle/index.js';
import { createHealthzServer } from './server/healthz.js';
import type { ResolvedConfig } from './config/resolve.js';
import type { FeatureGates } from './config/featuregates.js';
import { parseByteSize } from './config/values/quantity.js';
import { isAgentError } from './errors.js';

export interface RunAgentOptions {
  readonly resolved: ResolvedConfig;
  readonly gates: FeatureGates;
  readonly warnings: readonly string[];
  /** The version the agent reports (built-in, or --version=vX.Y.Z). */
  readonly version: string;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  /** Called on a second SIGTERM/SIGINT; bin/ exits there. Defaults to setting a failing exit code. */
  readonly forceExit?: (signal: NodeJS.Signals) => void;
}

/** How long a graceful shutdown may take before the agent gives up on stragglers. */
export const SHUTDOWN_TIMEOUT_MS = 10_000;

export type Mode = 'api-server' | 'standalone';

export const modeOf = (r: ResolvedConfig): Mode => (r.flags.platformconfig !== '' ? 'api-server' : 'standalone');

/** Runs until SIGTERM/SIGINT (or lock contention); resolves with the exit code. */
export async function runAgent(opts: RunAgentOptions): Promise<number> {
  const { config: cfg, flags } = opts.resolved;
  const logging = createLogging({
    format: cfg.logging.format,
    verbosity: cfg.logging.verbosity,
    vmodule: cfg.logging.vmodule,
    flushFrequencyMs: cfg.logging.flushFrequency,
    json: { splitStream: cfg.logging.options.json.splitStream, infoBufferSize: parseByteSize(cfg.logging.options.json.infoBufferSize) },
    stdout: opts.stdout,
    stderr: opts.stderr,
  });
  const log = logging.root;
  for (const w of opts.warnings) log.warn(w);

  const controller = new AbortController();
  const uninstall = installSignalHandlers(controller, log, {
    forceExit: opts.forceExit ?? ((signal) => {
      log.error('forced exit', { signal });
      logging.flush();
      process.exitCode = 1;
      process.kill(process.pid, 'SIGKILL');
    }),
  });
  let lock: HeldLock | undefined;
  try {
    const mode = modeOf(opts.resolved);
    log.info('Starting agent', { version: opts.version, mode, files: opts.resolved.files, nodeVersion: process.version });
    if (mode === 'api-server') await checkPlatformConfig(opts.resolved);

    if (flags.lockFilePath !== '') {
      lock = await acquireLock(flags.lockFilePath, {
        signal: controller.signal,
        watchContention: flags.exitOnLockContention,
        onWaiting: () => log.info('Waiting for the lock file, held by another process', { path: flags.lockFilePath }),
      });
      log.info('Acquired the lock file', { path: lock.path });
      if (flags.exitOnLockContention) {
        void lock.contended.then((reason) => {
          log.info('Lock contention detected, exiting', { path: flags.lockFilePath, reason });
          controller.abort(new Error('lock file contention'));
        });
      }
    }
    await applyOomScoreAdj(cfg.oomScoreAdj, log);

    if (cfg.runOnce) {
      // Run-once mode serves nothing; it spawns the pods of the local sources and exits.
      log.info('Run once: no pod sources produced pods', { pods: 0 });
      return 0;
    }
    const liveness = new LivenessRegistry();
    const components: Component[] = [createHealthzServer({ address: cfg.healthzBindAddress, port: cfg.healthzPort, liveness, log: log.child({ component: 'healthz' }) })];
    await runComponents(components, { signal: controller.signal, shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS, log });
    log.info('Agent stopped');
    return 0;
  } catch (e) {
    if (controller.signal.aborted && isAbortLike(e)) return 0;
    log.error('Agent failed', { err: e });
    return 1;
  } finally {
    uninstall();
    await lock?.release();
    await logging.close();
  }
}

function isAbortLike(e: unknown): boolean {
  return isAgentError(e) && e.code === 'ELOCK' && e.cause !== undefined;
}

async function checkPlatformConfig(r: ResolvedConfig): Promise<void> {
  const { platformconfig, bootstrapPlatformconfig } = r.flags;
  try {
    await access(platformconfig);
  } catch {
    if (bootstrapPlatformconfig === '') {
      throw new Error(`unable to load the API server connection file --platformconfig "${platformconfig}": it does not exist and no --bootstrap-platformconfig is given`);
    }
  }
}

/** Like the kubelet, protect the agent from the OOM killer; failure (no privilege) is logged, not fatal. */
async function applyOomScoreAdj(value: number, log: AgentLogger): Promise<void> {
  try {
    await writeFile('/proc/self/oom_score_adj', String(value));
  } catch (e) {
    log.v(1)?.info('Could not set the agent process OOM score adjustment', { value, err: e });
  }
}
