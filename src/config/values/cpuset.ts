// Linux cpuset list syntax (`0-3,7`), as in cpuset.cpus and k8s.io/utils/cpuset.
import { ValueError } from '../../errors.js';

/**
 * Far above any real NR_CPUS (the kernel's limit is 8192); it only stops a typo
 * such as `0-99999999` from allocating a huge array.
 */
const MAX_CPU_ID = 65_535;

function cpuNumber(item: string, whole: string): number {
  if (!/^\d+$/.test(item)) {
    throw new ValueError(`invalid cpuset ${JSON.stringify(whole)}: ${JSON.stringify(item)} is not a CPU number (expected e.g. 0-3,7)`);
  }
  const n = Number(item);
  if (n > MAX_CPU_ID) throw new ValueError(`invalid cpuset ${JSON.stringify(whole)}: CPU ${item} is above ${MAX_CPU_ID}`);
  return n;
}

/**
 * `0-3,7` → [0,1,2,3,7]: sorted, without duplicates; '' → []. Ranges are
 * merged before they are expanded, so the work is bounded by the input length
 * plus MAX_CPU_ID, however many times a wide range is repeated.
 */
export function parseCpuSet(text: string): number[] {
  if (text.trim() === '') return [];
  const ranges: Array<[number, number]> = [];
  for (const raw of text.split(',')) {
    const item = raw.trim();
    const dash = item.indexOf('-', 1);
    if (dash === -1) {
      const cpu = cpuNumber(item, text);
      ranges.push([cpu, cpu]);
      continue;
    }
    const lo = item.slice(0, dash).trim();
    const hi = item.slice(dash + 1).trim();
    const start = cpuNumber(lo, text);
    const end = cpuNumber(hi, text);
    if (start > end) {
      throw new ValueError(`invalid cpuset ${JSON.stringify(text)}: range ${JSON.stringify(item)} is reversed (${start} > ${end})`);
    }
    ranges.push([start, end]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const cpus: number[] = [];
  let next = 0; // the lowest CPU not yet emitted
  for (const [start, end] of ranges) {
    for (let c = Math.max(start, next); c <= end; c++) cpus.push(c);
    next = Math.max(next, end + 1);
  }
  return cpus;
}

/** [0,1,2,3,7] → `0-3,7`; input order and duplicates do not matter. */
export function formatCpuSet(cpus: readonly number[]): string {
  const sorted = [...new Set(cpus)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    const start = sorted[i] as number;
    let end = start;
    while (sorted[i + 1] === end + 1) {
      end++;
      i++;
    }
    i++;
    parts.push(start === end ? `${start}` : `${start}-${end}`);
  }
  return parts.join(',');
}
