// Reserved-resource settings: `--system-reserved` / `--platform-reserved`
// lists (the kubelet's parseResourceList), `--reserved-memory` per NUMA node
// (cliflag ReservedMemoryVar plus validateReservedMemoryConfiguration) and
// `--qos-reserved` percentages (cm.ParseQOSReserved).
import { ValueError } from '../../errors.js';
import { parseMapStringString } from './kv.js';
import { isNegative, parseQuantity, type Quantity } from './quantity.js';

export const RESERVABLE_RESOURCES = ['cpu', 'memory', 'ephemeral-storage', 'pid'] as const;

/** Parses without throwing; the message names the resource. */
function quantityOf(name: string, text: string): Quantity | string {
  try {
    return parseQuantity(text);
  } catch (e) {
    return `${JSON.stringify(name)}: ${(e as Error).message}`;
  }
}

/** Problems in a `resource=quantity` map: unknown names, bad or negative quantities. */
export function validateResourceList(map: Readonly<Record<string, string>>, allowed: readonly string[]): string[] {
  const problems: string[] = [];
  for (const [name, text] of Object.entries(map)) {
    if (!allowed.includes(name)) {
      problems.push(`cannot reserve ${JSON.stringify(name)} resource (supported: ${allowed.join(', ')})`);
      continue;
    }
    const q = quantityOf(name, text);
    if (typeof q === 'string') problems.push(q);
    else if (isNegative(q)) problems.push(`quantity for ${JSON.stringify(name)} cannot be negative: ${JSON.stringify(text)}`);
  }
  return problems;
}

export interface ReservedMemory {
  numaNode: number;
  /** `memory` or `hugepages-<size>` → quantity text. */
  limits: Record<string, string>;
}

/** The kubelet's MemoryReservation.NumaNode is an int32. */
const MAX_NUMA_NODE = 2 ** 31 - 1;
const isNumaNode = (n: number): boolean => Number.isSafeInteger(n) && n >= 0 && n <= MAX_NUMA_NODE;

const RESERVED_MEMORY_FORMAT = 'expected numaNode:type=quantity[,type=quantity...] with entries separated by ";"';

/** Why a name is not a reservable memory type, or undefined. */
function memoryTypeProblem(name: string): string | undefined {
  if (name === 'memory') return undefined;
  if (name.startsWith('hugepages-')) {
    const size = quantityOf(name, name.slice('hugepages-'.length));
    if (typeof size !== 'string' && size.value > 0) return undefined;
  }
  return `unsupported memory type ${JSON.stringify(name)} (use memory or hugepages-<size>, e.g. hugepages-2Mi)`;
}

/** `0:memory=1Gi,hugepages-2Mi=2Gi;1:memory=1Gi` → one entry per NUMA node, in order. */
export function parseReservedMemory(text: string): ReservedMemory[] {
  if (text.trim() === '') return [];
  const fail = (reason: string): never => {
    throw new ValueError(`invalid reserved memory ${JSON.stringify(text)}: ${reason}`);
  };
  return text.split(';').map((entry) => {
    const parts = entry.split(':');
    if (parts.length !== 2) fail(`${JSON.stringify(entry)}: ${RESERVED_MEMORY_FORMAT}`);
    const [node = '', list = ''] = parts.map((p) => p.trim());
    if (!/^\d+$/.test(node)) fail(`NUMA node ${JSON.stringify(node)} is not a non-negative integer`);
    if (!isNumaNode(Number(node))) fail(`NUMA node ${node} is above the int32 maximum ${MAX_NUMA_NODE}`);
    const limits = new Map<string, string>();
    for (const item of list.split(',')) {
      const kv = item.split('=');
      if (kv.length !== 2) fail(`${JSON.stringify(item)}: expected type=quantity`);
      const [name = '', quantity = ''] = kv.map((p) => p.trim());
      const bad = memoryTypeProblem(name);
      if (bad !== undefined) fail(bad);
      const q = quantityOf(name, quantity);
      if (typeof q === 'string') fail(q);
      limits.set(name, quantity);
    }
    return { numaNode: Number(node), limits: Object.fromEntries(limits) };
  });
}

/** Repeated `--reserved-memory` flags accumulate. */
export function mergeReservedMemory(a: readonly ReservedMemory[], b: readonly ReservedMemory[]): ReservedMemory[] {
  return [...a, ...b];
}

/** Problems in a reservedMemory list, wherever it came from: bad nodes, types, quantities, duplicates. */
export function validateReservedMemory(list: readonly ReservedMemory[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const { numaNode, limits } of list) {
    if (!Number.isSafeInteger(numaNode) || numaNode < 0) {
      problems.push(`NUMA node ${String(numaNode)} is not a non-negative integer`);
    } else if (!isNumaNode(numaNode)) {
      problems.push(`NUMA node ${String(numaNode)} is above the int32 maximum ${MAX_NUMA_NODE}`);
    }
    for (const [name, text] of Object.entries(limits)) {
      const where = `NUMA node ${String(numaNode)} resource ${JSON.stringify(name)}`;
      const bad = memoryTypeProblem(name);
      if (bad !== undefined) problems.push(`${where}: ${bad}`);
      const q = quantityOf(name, text);
      if (typeof q === 'string') problems.push(`NUMA node ${String(numaNode)} resource ${q}`);
      else if (q.value === 0) problems.push(`${where}: reserved memory may not be zero`);
      else if (isNegative(q)) problems.push(`${where}: reserved memory may not be negative: ${JSON.stringify(text)}`);
      const key = `${String(numaNode)}\u0000${name}`;
      if (seen.has(key)) problems.push(`${where}: duplicate reservation`);
      seen.add(key);
    }
  }
  return problems;
}

/** Problems in a `--qos-reserved` map: only `memory`, as an integer percentage 0..100. */
export function validatePercentMap(map: Readonly<Record<string, string>>): string[] {
  const problems: string[] = [];
  for (const [name, text] of Object.entries(map)) {
    if (name !== 'memory') {
      problems.push(`cannot reserve ${JSON.stringify(name)} resource (only memory is supported)`);
      continue;
    }
    const m = /^(\d+)%$/.exec(text);
    if (m === null) problems.push(`invalid percentage ${JSON.stringify(text)} for "memory": expected an integer percentage such as 50%`);
    else if (Number(m[1]) > 100) problems.push(`invalid percentage ${JSON.stringify(text)} for "memory": must be between 0% and 100%`);
  }
  return problems;
}
