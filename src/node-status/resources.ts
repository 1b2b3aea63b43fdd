// Capacity and allocatable of the node's status (the kubelet's MachineInfo
// setter with the container manager's GetNodeAllocatableReservation): pure,
// from host facts and the configuration. Amounts are kept in base units
// (millicores for cpu, bytes, counts) and written as the API server's
// canonical quantities, so an unchanged node gives byte-equal statuses.
import type { HugePages } from '../node/host-info.js';
import { parseQuantity } from '../config/values/quantity.js';

/** Amounts per resource name: cpu in millicores, memory/storage/hugepages in bytes, pods a count. */
export type Amounts = Record<string, number>;

const BINARY = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'] as const;

/** Bytes as resource.Quantity prints a BinarySI amount: the largest binary suffix dividing it exactly (`16318480Ki`, `2Mi`, `1000`). */
export function formatBinary(bytes: number): string {
  const v = Math.max(0, Math.floor(bytes));
  if (v === 0) return '0';
  let n = 0;
  let x = v;
  while (n < BINARY.length - 1 && x % 1024 === 0) {
    x /= 1024;
    n += 1;
  }
  return `${x}${BINARY[n] ?? ''}`;
}

/** Millicores as a DecimalSI cpu quantity: whole cores without suffix, else `m`. */
export function formatMilliCpu(milli: number): string {
  const v = Math.max(0, Math.round(milli));
  return v % 1000 === 0 ? String(v / 1000) : `${v}m`;
}

/** `hugepages-<size>` for a page size in bytes (`hugepages-2Mi`, `hugepages-1Gi`). */
export const hugePageResource = (pageSize: number): string => `hugepages-${formatBinary(pageSize)}`;

export const isHugePageResource = (name: string): boolean => name.startsWith('hugepages-');

/** Writes amounts as the status's ResourceList (keys sorted). */
export function toResourceList(a: Readonly<Amounts>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(a).sort()) {
    const v = a[k] ?? 0;
    out[k] = k === 'cpu' ? formatMilliCpu(v) : k === 'pods' ? String(Math.max(0, Math.floor(v))) : formatBinary(v);
  }
  return out;
}

export interface CapacityInput {
  readonly cpus: number;
  readonly memoryBytes: number | undefined;
  readonly hugePages: readonly HugePages[];
  /** The root directory's filesystem size; undefined leaves ephemeral-storage out. */
  readonly rootFsBytes: number | undefined;
  /** effectiveMaxPods of the configuration. */
  readonly maxPods: number;
}

/** The node's capacity. A fact that could not be read is left out (the Ready condition then names it). */
export function nodeCapacity(i: CapacityInput): Amounts {
  const out: Amounts = { cpu: i.cpus * 1000, pods: i.maxPods };
  if (i.memoryBytes !== undefined) out['memory'] = i.memoryBytes;
  if (i.rootFsBytes !== undefined) out['ephemeral-storage'] = i.rootFsBytes;
  for (const h of i.hugePages) out[hugePageResource(h.pageSize)] = h.pageSize * h.pages;
  return out;
}

export interface ReservationInput {
  /** --platform-reserved / --system-reserved (validated at start): resource → quantity text. */
  readonly platformReserved: Readonly<Record<string, string>>;
  readonly systemReserved: Readonly<Record<string, string>>;
  /** Count of --reserved-cpus; when > 0 it replaces the cpu of both reservations. */
  readonly reservedCpuCount: number;
  /** --eviction-hard (signal → `100Mi` or `10%`). */
  readonly evictionHard: Readonly<Record<string, string>>;
  /** --experimental-allocatable-ignore-eviction. */
  readonly ignoreEviction: boolean;
}

/** A quantity in the unit this module keeps for `resource`. Invalid text (already refused at start) counts as 0. */
function amountOf(resource: string, text: string): number {
  try {
    const v = parseQuantity(text).value;
    return resource === 'cpu' ? Math.round(v * 1000) : Math.floor(v);
  } catch {
    return 0;
  }
}

/** The kubelet's hardEvictionReservation: memory.available → memory, nodefs.available → ephemeral-storage. */
function evictionReservation(evictionHard: Readonly<Record<string, string>>, capacity: Readonly<Amounts>): Amounts {
  const out: Amounts = {};
  const pairs: ReadonlyArray<readonly [string, string]> = [
    ['memory.available', 'memory'],
    ['nodefs.available', 'ephemeral-storage'],
  ];
  for (const [signal, resource] of pairs) {
    const text = evictionHard[signal];
    if (text === undefined) continue;
    // Upstream keeps the fraction as a float32 (ParsePercentage): 10% reserves a few bytes more than a tenth.
    if (text.endsWith('%')) out[resource] = Math.trunc((capacity[resource] ?? 0) * Math.fround(Math.fround(Number(text.slice(0, -1))) / 100));
    else out[resource] = amountOf(resource, text);
  }
  return out;
}

/** What is held back from pods: platform-reserved + system-reserved + hard eviction thresholds. */
export function nodeReservation(r: ReservationInput, capacity: Readonly<Amounts>): Amounts {
  const out: Amounts = {};
  const add = (k: string, v: number): void => void (out[k] = (out[k] ?? 0) + v);
  for (const m of [r.platformReserved, r.systemReserved]) for (const [k, v] of Object.entries(m)) if (!(k === 'cpu' && r.reservedCpuCount > 0)) add(k, amountOf(k, v));
  if (r.reservedCpuCount > 0) add('cpu', r.reservedCpuCount * 1000);
  if (!r.ignoreEviction) for (const [k, v] of Object.entries(evictionReservation(r.evictionHard, capacity))) add(k, v);
  return out;
}

/** Allocatable = capacity − reservation (never below 0); memory also loses the hugepages' bytes. */
export function nodeAllocatable(capacity: Readonly<Amounts>, reservation: Readonly<Amounts>): Amounts {
  const out: Amounts = {};
  for (const [k, v] of Object.entries(capacity)) out[k] = Math.max(0, v - (reservation[k] ?? 0));
  if (out['memory'] !== undefined) {
    for (const [k, v] of Object.entries(capacity)) if (isHugePageResource(k)) out['memory'] = Math.max(0, (out['memory'] ?? 0) - v);
  }
  return out;
}
