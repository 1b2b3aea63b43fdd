// CPU rates from two cumulative samples, as the kubelet's CRI stats provider
// derives usageNanoCores when the runtime does not report it. Pure apart from
// the cache, which the provider owns and prunes once per refresh.

export interface CpuSample {
  /** ns since the epoch when the counter was read. */
  timestampNs: bigint;
  usageCoreNanoSeconds: number;
}

/**
 * Cores in use (in nano-cores) between two samples: the counter's growth over
 * the time between them. undefined without a usable earlier sample: none,
 * not older than `cur`, or a counter that went backwards (a new cgroup under
 * the same key).
 */
export function nanoCoresBetween(prev: CpuSample | undefined, cur: CpuSample): number | undefined {
  if (prev === undefined) return undefined;
  const dtNs = Number(cur.timestampNs - prev.timestampNs);
  const used = cur.usageCoreNanoSeconds - prev.usageCoreNanoSeconds;
  if (!(dtNs > 0) || used < 0) return undefined;
  return Math.round((used / dtNs) * 1e9);
}

/** The last sample (and rate) per key: containers by runtime ID, pods by UID, the node and system containers by name. */
export class RateCache {
  private readonly entries = new Map<string, { sample: CpuSample; rate: number | undefined }>();

  /**
   * Records `cur` and returns the rate since the key's previous sample. A
   * sample no newer than the stored one (the runtime's cached stats read
   * twice) keeps the stored sample and returns its rate, as the kubelet does.
   */
  update(key: string, cur: CpuSample): number | undefined {
    const prev = this.entries.get(key);
    if (prev !== undefined && cur.timestampNs <= prev.sample.timestampNs) return prev.rate;
    const rate = nanoCoresBetween(prev?.sample, cur);
    this.entries.set(key, { sample: cur, rate });
    return rate;
  }

  /** Forgets every key not in `live` (containers and pods that are gone), so the cache stays bounded. */
  retain(live: ReadonlySet<string>): void {
    for (const k of this.entries.keys()) if (!live.has(k)) this.entries.delete(k);
  }

  get size(): number {
    return this.entries.size;
  }
}
