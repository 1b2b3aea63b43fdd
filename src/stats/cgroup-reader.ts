// The pods' cgroups as one stats refresh reads them. A refresh runs every
// 10 s over every pod (110 on a full node), so each file read counts: the
// figures that move (CPU time, memory usage and memory.stat) are read every
// time and only those a caller lacks (containerd already reports a
// container's CPU), while the memory limit and the first process — which
// change only when a container is updated or restarted, and a restart is a new
// cgroup — are read at most once per `staticTtlMs`.
import { isUnified, readText, type CgroupReading } from './files.js';
import { cpuNanosFromCgroupV2, memoryFromCgroupV1, memoryFromCgroupV2, parseInteger } from './parse.js';

export interface CgroupWant {
  /** cpuacct.usage (v1) / cpu.stat (v2). */
  cpu: boolean;
  /** memory usage and memory.stat (the limit comes along, cached). */
  memory: boolean;
}

interface Statics {
  at: number;
  limit: string | undefined;
  firstPid: number | undefined;
}

export class CgroupReader {
  private readonly statics = new Map<string, Statics>();

  constructor(
    private readonly mount: string,
    private readonly staticTtlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The wanted figures of the cgroup at `rel` (relative to a hierarchy root)
   * with its memory limit and first process, undefined when none of the
   * wanted files is readable (the cgroup went). Never throws.
   */
  async read(rel: string, want: CgroupWant): Promise<CgroupReading | undefined> {
    const v2 = await isUnified(this.mount);
    const cpuFile = v2 ? `${this.mount}${rel}/cpu.stat` : `${this.mount}/cpuacct${rel}/cpuacct.usage`;
    const memDir = v2 ? `${this.mount}${rel}` : `${this.mount}/memory${rel}`;
    const [cpu, usage, stat] = await Promise.all([
      want.cpu ? readText(cpuFile) : undefined,
      want.memory ? readText(`${memDir}/${v2 ? 'memory.current' : 'memory.usage_in_bytes'}`) : undefined,
      want.memory ? readText(`${memDir}/memory.stat`) : undefined,
    ]);
    if ((want.cpu || want.memory) && cpu === undefined && usage === undefined) return undefined;
    const s = await this.staticsOf(rel);
    if (!want.cpu && !want.memory && s.limit === undefined && s.firstPid === undefined) return undefined;
    const limit = s.limit;
    // Without usage or memory.stat these parse to the limit alone.
    const out: CgroupReading = { memory: v2 ? memoryFromCgroupV2({ current: usage, stat, max: limit }) : memoryFromCgroupV1({ usage, stat, limit }) };
    const cpuNanos = cpu === undefined ? undefined : v2 ? cpuNanosFromCgroupV2(cpu) : parseInteger(cpu);
    if (cpuNanos !== undefined) out.cpuNanos = cpuNanos;
    if (s.firstPid !== undefined) out.firstPid = s.firstPid;
    return out;
  }

  /** The cgroup's first process (to read its network namespace), cached as the limit is. */
  async firstPid(rel: string): Promise<number | undefined> {
    return (await this.staticsOf(rel)).firstPid;
  }

  /** Forgets cgroups not in `live` (containers and pods that went). */
  retain(live: ReadonlySet<string>): void {
    for (const rel of this.statics.keys()) if (!live.has(rel)) this.statics.delete(rel);
  }

  private async staticsOf(rel: string): Promise<Statics> {
    const t = this.now();
    const hit = this.statics.get(rel);
    if (hit !== undefined && t - hit.at < this.staticTtlMs) return hit;
    const v2 = await isUnified(this.mount);
    const memDir = v2 ? `${this.mount}${rel}` : `${this.mount}/memory${rel}`;
    const [limit, procs] = await Promise.all([readText(`${memDir}/${v2 ? 'memory.max' : 'memory.limit_in_bytes'}`), readText(`${memDir}/cgroup.procs`)]);
    const nl = procs?.indexOf('\n') ?? -1;
    const s: Statics = { at: t, limit, firstPid: procs === undefined ? undefined : parseInteger(nl < 0 ? procs : procs.slice(0, nl)) };
    // An empty cgroup (no process yet) is asked again next time rather than remembered.
    if (s.firstPid !== undefined) this.statics.set(rel, s);
    return s;
  }
}
