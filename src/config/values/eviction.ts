// Eviction thresholds: the `signal<value` flag syntax and the kubelet's
// ParseThresholdConfig, which turns the four eviction maps into thresholds.
// buildThresholds reports every problem at once rather than the first.
import { ValueError } from '../../errors.js';
import { parseDurationNs } from './duration.js';
import { parseLangleSeparatedMap } from './kv.js';
import { parseQuantity, type Quantity } from './quantity.js';

export const EVICTION_SIGNALS = [
  'memory.available',
  'allocatableMemory.available',
  'nodefs.available',
  'nodefs.inodesFree',
  'imagefs.available',
  'imagefs.inodesFree',
  'pid.available',
] as const;
export type EvictionSignal = (typeof EVICTION_SIGNALS)[number];

export const isEvictionSignal = (s: string): s is EvictionSignal => (EVICTION_SIGNALS as readonly string[]).includes(s);

/** Linux defaults; any explicit evictionHard replaces the whole map (no key-by-key merge). */
export const defaultEvictionHard: Readonly<Record<string, string>> = Object.freeze({
  'imagefs.available': '15%',
  'memory.available': '100Mi',
  'nodefs.available': '10%',
  'nodefs.inodesFree': '5%',
});

const SIGNALS_HELP = `use ${EVICTION_SIGNALS.join(', ')}`;

/** `--eviction-hard` / `--eviction-soft`: `memory.available<100Mi,nodefs.available<10%` → signal → value text. */
export function parseEvictionFlag(text: string): Record<string, string> {
  let map: Record<string, string>;
  try {
    map = parseLangleSeparatedMap(text);
  } catch (e) {
    if (!(e instanceof ValueError)) throw e;
    throw new ValueError(`${e.message} (only the < operator is supported, e.g. memory.available<100Mi)`, { cause: e });
  }
  for (const [signal, value] of Object.entries(map)) {
    if (!isEvictionSignal(signal)) throw new ValueError(`unknown eviction signal ${JSON.stringify(signal)} (${SIGNALS_HELP})`);
    if (/^[<=>]/.test(value)) {
      throw new ValueError(`invalid threshold ${JSON.stringify(`${signal}<${value}`)}: only the < operator is supported`);
    }
  }
  return map;
}

export interface ThresholdValue {
  quantity?: Quantity;
  /** A fraction of capacity in (0, 1], as the kubelet stores it: `10%` → 0.1. */
  percentage?: number;
}

export interface Threshold {
  signal: EvictionSignal;
  operator: 'LessThan';
  value: ThresholdValue;
  /** 0 for hard thresholds. */
  gracePeriodMs: number;
  minReclaim?: ThresholdValue;
}

export interface ThresholdInput {
  hard: Readonly<Record<string, string>>;
  soft: Readonly<Record<string, string>>;
  softGracePeriod: Readonly<Record<string, string>>;
  minimumReclaim: Readonly<Record<string, string>>;
  enforceNodeAllocatable: readonly string[];
}

export interface ThresholdResult {
  thresholds: Threshold[];
  problems: string[];
  /** Settings the kubelet accepts but ignores. */
  warnings: string[];
}

/**
 * strconv.ParseFloat of the text before `%`, as a fraction; undefined if it is
 * not a decimal number or, as ParseFloat's range error, overflows to infinity
 * (`1e309%` would otherwise be an infinite minimum reclaim). `-0%` is 0.
 */
function parsePercent(text: string): number | undefined {
  const m = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)%$/.exec(text);
  if (m === null) return undefined;
  const n = Number(m[1]);
  return Number.isFinite(n) ? n / 100 + 0 : undefined;
}

type Report = (msg: string) => void;

/** A threshold value; undefined when it is `0%`/`100%` (ignored) or invalid (reported). */
function thresholdValue(text: string, report: Report): ThresholdValue | undefined {
  if (text.endsWith('%')) {
    if (text === '0%' || text === '100%') return undefined;
    const p = parsePercent(text);
    if (p === undefined) report(`invalid percentage ${JSON.stringify(text)}`);
    else if (p < 0) report(`percentage must be >= 0%: ${JSON.stringify(text)}`);
    else if (p > 1) report(`percentage must be <= 100%: ${JSON.stringify(text)}`);
    else return { percentage: p };
    return undefined;
  }
  try {
    const quantity = parseQuantity(text);
    if (quantity.value > 0) return { quantity };
    report(`threshold must be positive: ${JSON.stringify(text)}`);
  } catch (e) {
    report((e as Error).message);
  }
  return undefined;
}

function reclaimValue(text: string, report: Report): ThresholdValue | undefined {
  if (text.endsWith('%')) {
    const p = parsePercent(text);
    if (p === undefined) report(`invalid percentage ${JSON.stringify(text)}`);
    else if (p <= 0) report(`percentage must be positive: ${JSON.stringify(text)}`);
    else return { percentage: p };
    return undefined;
  }
  try {
    const quantity = parseQuantity(text);
    if (quantity.value >= 0) return { quantity };
    report(`minimum reclaim must not be negative: ${JSON.stringify(text)}`);
  } catch (e) {
    report((e as Error).message);
  }
  return undefined;
}

/** Entries of one map with a known signal; unknown signals are reported under the map's field name. */
function signalEntries(field: string, map: Readonly<Record<string, string>>, problems: string[]): Array<[EvictionSignal, string, Report]> {
  const out: Array<[EvictionSignal, string, Report]> = [];
  for (const [signal, text] of Object.entries(map)) {
    const report: Report = (msg) => problems.push(`${field}[${signal}]: ${msg}`);
    if (isEvictionSignal(signal)) out.push([signal, text, report]);
    else report(`unsupported eviction signal (${SIGNALS_HELP})`);
  }
  return out;
}

/** The kubelet's ParseThresholdConfig over the four eviction maps. */
export function buildThresholds(input: ThresholdInput): ThresholdResult {
  const problems: string[] = [];
  const warnings: string[] = [];

  const graceMs = new Map<EvictionSignal, number>();
  for (const [signal, text, report] of signalEntries('evictionSoftGracePeriod', input.softGracePeriod, problems)) {
    try {
      const ns = parseDurationNs(text);
      if (ns < 0n) report(`grace period must not be negative: ${JSON.stringify(text)}`);
      else graceMs.set(signal, Number(ns) / 1e6);
    } catch (e) {
      report((e as Error).message);
    }
  }
  const reclaim = new Map<EvictionSignal, ThresholdValue>();
  for (const [signal, text, report] of signalEntries('evictionMinimumReclaim', input.minimumReclaim, problems)) {
    const v = reclaimValue(text, report);
    if (v !== undefined) reclaim.set(signal, v);
  }

  const thresholds: Threshold[] = [];
  const add = (signal: EvictionSignal, value: ThresholdValue, gracePeriodMs: number): void => {
    const minReclaim = reclaim.get(signal);
    thresholds.push({ signal, operator: 'LessThan', value, gracePeriodMs, ...(minReclaim === undefined ? {} : { minReclaim }) });
  };
  for (const [signal, text, report] of signalEntries('evictionHard', input.hard, problems)) {
    const v = thresholdValue(text, report);
    if (v !== undefined) add(signal, v, 0);
  }
  const softSignals = new Set<EvictionSignal>();
  for (const [signal, text, report] of signalEntries('evictionSoft', input.soft, problems)) {
    const v = thresholdValue(text, report);
    if (v === undefined) continue;
    softSignals.add(signal);
    const grace = graceMs.get(signal);
    if (grace === undefined) report(`grace period must be specified (set evictionSoftGracePeriod[${signal}])`);
    else add(signal, v, grace);
  }

  for (const signal of graceMs.keys()) {
    if (!softSignals.has(signal)) warnings.push(`evictionSoftGracePeriod[${signal}]: ignored, there is no soft threshold for this signal`);
  }
  const thresholdSignals = new Set(thresholds.map((t) => t.signal));
  for (const signal of reclaim.keys()) {
    if (!thresholdSignals.has(signal)) warnings.push(`evictionMinimumReclaim[${signal}]: ignored, there is no threshold for this signal`);
  }

  // Hard memory thresholds also guard the pods' cgroup when allocatable is enforced on it.
  if (input.enforceNodeAllocatable.includes('pods')) {
    for (const t of [...thresholds]) {
      if (t.signal === 'memory.available' && t.gracePeriodMs === 0) {
        thresholds.push({ ...t, signal: 'allocatableMemory.available' });
      }
    }
  }
  return { thresholds, problems, warnings };
}
