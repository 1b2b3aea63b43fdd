// The container log rotation manager (the kubelet's ContainerLogManager):
// every period it looks at the running containers' log files and rotates
// those at or above --container-log-max-size (plan.ts says how), keeping at
// most --container-log-max-files per container, older ones gzipped, and asks
// the runtime to reopen the live file.
//
// One worker: ticks never overlap, and a tick handles at most
// maxContainersPerTick containers, the next tick going on where it stopped.
// A container's failure is logged and the others go on. Nothing runs after
// the signal aborts (a compression in flight is cancelled, its .tmp left for
// the next start to remove).
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Container, RuntimeService } from '../cri/types.js';
import { ANN_CONTAINER_RESTART_COUNT, LABEL_CONTAINER_NAME, LABEL_POD_NAME, LABEL_POD_NAMESPACE, LABEL_POD_UID } from '../runtime-view/labels.js';
import { abortableSleep } from '../lifecycle/abort.js';
import { defineComponent, type Component } from '../lifecycle/component.js';
import type { AgentLogger } from '../log/index.js';
import { COMPRESS_SUFFIX, planRotation, TMP_SUFFIX } from './plan.js';

/** The kubelet's log monitor period. */
export const LOG_MONITOR_PERIOD_MS = 10_000;
/** Containers looked at in one tick; more wait for the next ticks. */
export const MAX_CONTAINERS_PER_TICK = 200;

export interface ContainerLogManagerOptions {
  runtime: Pick<RuntimeService, 'listContainers' | 'containerStatus' | 'reopenContainerLog'>;
  /** --container-log-max-size in bytes (> 0). */
  maxSize: number;
  /** --container-log-max-files (≥ 2). */
  maxFiles: number;
  /**
   * Where the agent puts pod log directories (/var/log/pods): the log of a
   * container the agent made is found from its labels, without a
   * ContainerStatus call per container every period (110 calls every 10 s
   * were a tenth of a node's idle CPU). Absent: asked from the runtime.
   */
  podLogsDir?: string;
  log: AgentLogger;
  periodMs?: number;
  maxContainersPerTick?: number;
  now?: () => Date;
}

export interface ContainerLogManager extends Component {
  /** One pass over (at most maxContainersPerTick) running containers; resolves when done. For tests and the loop. */
  tick(signal: AbortSignal): Promise<void>;
}

export function createContainerLogManager(opts: ContainerLogManagerOptions): ContainerLogManager {
  const period = opts.periodMs ?? LOG_MONITOR_PERIOD_MS;
  const cap = opts.maxContainersPerTick ?? MAX_CONTAINERS_PER_TICK;
  const now = opts.now ?? (() => new Date());
  const log = opts.log;
  /** The container ID the next tick starts after (round robin over ticks). */
  let cursor = '';

  async function tick(signal: AbortSignal): Promise<void> {
    const listed = await opts.runtime.listContainers({ state: 'RUNNING' }, signal);
    const byId = new Map(listed.map((c) => [c.id, c]));
    const running = [...byId.keys()].sort();
    const start = running.findIndex((id) => id > cursor);
    const ordered = start < 0 ? running : [...running.slice(start), ...running.slice(0, start)];
    const batch = ordered.slice(0, cap);
    cursor = batch.length < running.length ? batch[batch.length - 1]! : '';
    for (const id of batch) {
      if (signal.aborted) return;
      try {
        await checkContainer(id, byId.get(id), signal);
      } catch (e) {
        if (signal.aborted) return;
        log.warn('Failed to rotate the log of a container', { containerID: id, err: e });
      }
    }
  }

  /** The log path of a container the agent made (sandbox-config.ts and container-config.ts build it so); undefined for another's. */
  function knownLogPath(c: Container | undefined): string | undefined {
    if (opts.podLogsDir === undefined || c === undefined) return undefined;
    const [ns, name, uid, container, restarts] = [c.labels[LABEL_POD_NAMESPACE], c.labels[LABEL_POD_NAME], c.labels[LABEL_POD_UID], c.labels[LABEL_CONTAINER_NAME], c.annotations[ANN_CONTAINER_RESTART_COUNT]];
    if (!ns || !name || !uid || !container || restarts === undefined || !/^\d+$/.test(restarts)) return undefined;
    return join(opts.podLogsDir, `${ns}_${name}_${uid}`, container, `${restarts}.log`);
  }

  async function checkContainer(id: string, listed: Container | undefined, signal: AbortSignal): Promise<void> {
    const path = knownLogPath(listed) ?? (await opts.runtime.containerStatus(id, signal)).logPath;
    if (path === '') return;
    // Synchronous on purpose: a stat of a local file answers from the inode cache in microseconds, and an
    // asynchronous one costs a thread-pool round trip per container every period (110 on a full node).
    let size = statSync(path, { throwIfNoEntry: false })?.size;
    if (size === undefined) {
      // A rotation whose reopen failed after the rename, or a log removed by hand: the runtime makes it anew.
      await opts.runtime.reopenContainerLog(id, signal);
      size = (await stat(path)).size;
    }
    // Below the limit nothing is done (the kubelet's rule): the directory is read only to rotate.
    if (size < opts.maxSize) return;
    const dir = dirname(path);
    const prefix = `${basename(path)}.`;
    const rotated = (await readdir(dir)).filter((n) => n.startsWith(prefix)).map((n) => join(dir, n));
    const plan = planRotation({ log: path, size, maxSize: opts.maxSize, maxFiles: opts.maxFiles, rotated, now: now() });
    if (plan === undefined) return;
    for (const f of plan.remove) await rm(f, { force: true });
    for (const f of plan.compress) await compress(f, signal);
    if (signal.aborted) return;
    await rename(path, plan.rotateTo);
    try {
      await opts.runtime.reopenContainerLog(id, signal);
    } catch (e) {
      // The runtime still writes the renamed file: rename it back, to rotate again next time.
      await rename(plan.rotateTo, path).catch((err: unknown) => log.warn('Could not rename a rotated log back', { containerID: id, path, err }));
      throw e;
    }
    log.v(2)?.info('Rotated a container log', { containerID: id, path, rotatedTo: plan.rotateTo, size });
  }

  const component = defineComponent('container-logs', async (signal, markReady) => {
    markReady();
    while (!signal.aborted) {
      try {
        await tick(signal);
      } catch (e) {
        if (!signal.aborted) log.warn('Failed to list containers for log rotation', { err: e });
      }
      try {
        await abortableSleep(period, signal);
      } catch {
        return;
      }
    }
  });
  return { ...component, tick };
}

/** Gzips `file` to `file.gz` through a .tmp file, then removes `file` (the kubelet's compressLog). */
async function compress(file: string, signal: AbortSignal): Promise<void> {
  const tmp = `${file}${COMPRESS_SUFFIX}${TMP_SUFFIX}`;
  try {
    await pipeline(createReadStream(file), createGzip(), createWriteStream(tmp), { signal });
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
  await rename(tmp, `${file}${COMPRESS_SUFFIX}`);
  await rm(file, { force: true });
}
