// The stats provider: a Component that refreshes the node's stats summary on
// a fixed schedule (every 10 s by default, the kubelet's housekeeping period),
// never per request. The HTTP routes only read the last snapshot.
//
// A tick that finds the previous refresh still running is skipped, so a slow
// runtime never piles up refreshes. On stop the timer is cleared and the
// refresh in flight is cancelled (its CRI calls see the abort) and awaited:
// nothing of the provider runs after run() settles.
import { isUnimplemented } from '../cri/errors.js';
import { AgentError } from '../errors.js';
import type { ImageService, PodSandboxStats, RuntimeService } from '../cri/types.js';
import { defineComponent, type Component } from '../lifecycle/component.js';
import type { AgentLogger } from '../log/index.js';
import type { StatusStore } from '../status/store.js';
import { buildSummary, type FilesystemsRaw } from './build.js';
import { collectNode } from './collect-node.js';
import { collectPods, type RuntimeReadings } from './collect-pods.js';
import { CgroupReader } from './cgroup-reader.js';
import { CgroupLocator, statfsReading, UsageCache } from './files.js';
import { RateCache } from './rates.js';
import type { StatsSnapshot, Summary } from './types.js';

/** The kubelet's housekeeping period. */
export const DEFAULT_STATS_PERIOD_MS = 10_000;
/** The kubelet's --volume-stats-agg-period default: disk usage is walked at most once a minute. */
export const DEFAULT_DISK_USAGE_PERIOD_MS = 60_000;
export const DEFAULT_POD_LOGS_DIR = '/var/log/pods';

export interface StatsProviderOptions {
  /** ImageFsInfo is used when the object serves it (the agent's runtime does). */
  runtime: RuntimeService & Partial<Pick<ImageService, 'imageFsInfo'>>;
  status: Pick<StatusStore, 'all'>;
  /** --root-dir: the node filesystem and the pods' emptyDir volumes. */
  rootDir: string;
  nodeName: string;
  periodMs?: number;
  log: Pick<AgentLogger, 'info' | 'warn' | 'error'>;
  /** Where the pods' container logs live; default /var/log/pods. */
  podLogsDir?: string;
  /** Test seams: /proc, the cgroup v1 mount, the clock. */
  procRoot?: string;
  cgroupMount?: string;
  now?: () => Date;
  /** How often a log directory or volume is walked for its disk usage (--volume-stats-agg-period); default 1 min. */
  diskUsagePeriodMs?: number;
  /** Called after each tick: a refresh done, or a tick skipped because one was running. Must not throw. */
  onTick?: (what: 'refreshed' | 'skipped') => void;
}

export interface StatsProvider extends Component {
  /** The last refresh's summary; undefined until the first refresh completed. Never blocks. */
  summary(): Summary | undefined;
  /** The last refresh, with its cpu-and-memory view, container identities and error flag. */
  snapshot(): (StatsSnapshot & { cpuAndMemory: Summary }) | undefined;
}

export function createStatsProvider(o: StatsProviderOptions): StatsProvider {
  const periodMs = o.periodMs ?? DEFAULT_STATS_PERIOD_MS;
  if (!(Number.isFinite(periodMs) && periodMs > 0)) throw new AgentError('EVALUE', `stats provider: periodMs must be a positive number of milliseconds, got ${periodMs}`);
  const now = o.now ?? (() => new Date());
  const procRoot = o.procRoot ?? '/proc';
  const cgroupMount = o.cgroupMount ?? '/sys/fs/cgroup';
  const rates = new RateCache();
  const usage = new UsageCache(o.diskUsagePeriodMs ?? DEFAULT_DISK_USAGE_PERIOD_MS, () => now().getTime());
  const locator = new CgroupLocator(cgroupMount);
  // A container's memory limit and first process are re-read as often as its disk usage: once per agg period.
  const cgroups = new CgroupReader(cgroupMount, o.diskUsagePeriodMs ?? DEFAULT_DISK_USAGE_PERIOD_MS, () => now().getTime());
  const agentStart = new Date(Date.now() - process.uptime() * 1000);
  let sandboxStatsServed = true;
  let failing = new Set<string>();
  let current: (StatsSnapshot & { cpuAndMemory: Summary }) | undefined;

  async function criReadings(signal: AbortSignal, errors: string[]): Promise<RuntimeReadings & { image: FilesystemsRaw }> {
    const rt = o.runtime;
    const soft = <T>(what: string, p: Promise<T>, fallback: T): Promise<T> =>
      p.catch((err: unknown) => {
        errors.push(`${what}: ${(err as Error).message}`);
        return fallback;
      });
    const sandboxStats = sandboxStatsServed
      ? rt.listPodSandboxStats(undefined, signal).catch((err: unknown): PodSandboxStats[] | undefined => {
          if (isUnimplemented(err)) {
            sandboxStatsServed = false;
            o.log.info('The runtime serves no pod sandbox stats; pod figures are summed from their containers', {});
          } else errors.push(`ListPodSandboxStats: ${(err as Error).message}`);
          return undefined;
        })
      : Promise.resolve(undefined);
    const [sandboxes, containers, containerStats, sbStats, imageFs] = await Promise.all([
      soft('ListPodSandbox', rt.listPodSandbox({ state: 'READY' }, signal), []),
      soft('ListContainers', rt.listContainers({ state: 'RUNNING' }, signal), []),
      soft('ListContainerStats', rt.listContainerStats(undefined, signal), []),
      sandboxStats,
      rt.imageFsInfo === undefined ? Promise.resolve([]) : soft('ImageFsInfo', rt.imageFsInfo(signal), []),
    ]);
    const first = imageFs[0];
    const image: FilesystemsRaw = {};
    if (first !== undefined) {
      image.imageUsage = { usedBytes: first.usedBytes, inodesUsed: first.inodesUsed };
      const fs = await statfsReading(first.mountpoint);
      if (fs !== undefined) image.image = fs;
    }
    return { sandboxes, containers, containerStats, sandboxStats: sbStats, image };
  }

  async function refresh(signal: AbortSignal): Promise<void> {
    const at = now();
    const errors: string[] = [];
    const [nodePart, cri, rootFs] = await Promise.all([
      collectNode({ nodeName: o.nodeName, procRoot, cgroups, rates, agentStart }, at),
      criReadings(signal, errors),
      statfsReading(o.rootDir),
    ]);
    errors.push(...nodePart.errors);
    const { pods, identities, live } = await collectPods(
      { rootDir: o.rootDir, podLogsDir: o.podLogsDir ?? DEFAULT_POD_LOGS_DIR, procRoot, locator, cgroups, rates, pods: o.status.all(), usage: (dir, sig) => usage.usage(dir, sig) },
      cri,
      at,
      signal,
    );
    if (signal.aborted) return;
    rates.retain(new Set([...live, 'node', 'system:agent']));
    usage.prune();
    const fss: FilesystemsRaw = { ...cri.image };
    if (rootFs !== undefined) fss.root = rootFs;
    else errors.push(`statfs ${o.rootDir} failed`);
    // Built on first read, once per refresh: nothing may read them before the
    // next refresh (no scraper, no summary request), and building both for 110
    // pods every 10 s was a sixth of an idle agent's allocations. The kubelet
    // builds its summary per request from cAdvisor's cache, too.
    let summary: Summary | undefined;
    let cpuAndMemory: Summary | undefined;
    current = {
      get summary(): Summary {
        return (summary ??= buildSummary(nodePart.node, pods, fss));
      },
      get cpuAndMemory(): Summary {
        return (cpuAndMemory ??= buildSummary(nodePart.node, pods, fss, true));
      },
      containers: identities,
      scrapeError: errors.length > 0,
    };
    reportErrors(errors);
  }

  /** Logs a source when it starts failing and when it recovers, not on every tick. */
  function reportErrors(errors: string[]): void {
    const next = new Set(errors.map((e) => e.split(':')[0] ?? e));
    for (const e of errors) if (!failing.has(e.split(':')[0] ?? e)) o.log.warn('A stats source failed; the summary leaves its figures out', { error: e });
    for (const k of failing) if (!next.has(k)) o.log.info('A stats source recovered', { source: k });
    failing = next;
  }

  const component = defineComponent('stats', async (signal, markReady) => {
    let inFlight: Promise<void> | undefined;
    const tick = (): void => {
      if (inFlight !== undefined) {
        o.onTick?.('skipped');
        return;
      }
      inFlight = refresh(signal)
        .catch((err: unknown) => {
          if (!signal.aborted) o.log.error('Stats refresh failed', { error: (err as Error).message });
        })
        .finally(() => {
          inFlight = undefined;
          if (!signal.aborted) o.onTick?.('refreshed');
        });
    };
    const timer = setInterval(tick, periodMs);
    tick();
    markReady();
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    clearInterval(timer);
    await inFlight;
  });

  return {
    name: component.name,
    ready: component.ready,
    run: (signal) => component.run(signal),
    summary: () => current?.summary,
    snapshot: () => current,
  };
}

