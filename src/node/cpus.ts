// Facts about the host that validation needs, read only when a check asks.
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseCpuSet } from '../config/values/cpuset.js';

/**
 * The node's online CPUs, as the kubelet's CPU topology counts them: the
 * kernel's online list (not the CPUs this process's affinity mask allows,
 * which os.availableParallelism() reports). Falls back to os.cpus(); undefined
 * when neither says.
 */
export function onlineCpuCount(readOnline: () => string = () => readFileSync('/sys/devices/system/cpu/online', 'utf8'), listCpus: () => readonly unknown[] = cpus): number | undefined {
  try {
    const n = parseCpuSet(readOnline().trim()).length;
    if (n > 0) return n;
  } catch {
    // not Linux, or /sys is not mounted: fall back
  }
  const n = listCpus().length;
  return n > 0 ? n : undefined;
}
