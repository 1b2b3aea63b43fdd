// What a decoded value of each option-table kind may be: the "no nonsense"
// half of the fuzz properties. Returns why a value is outside its kind's
// domain, or undefined when it is inside.
import * as k from '../../src/config/kinds.js';
import { TAINT_EFFECTS } from '../../src/config/values/taints.js';
import { headerProblem } from '../../src/config/values/kv.js';

type AnyKind = k.Kind<unknown>;

const INT32 = [-(2 ** 31), 2 ** 31 - 1] as const;
/** Go's time.Duration range, in milliseconds. */
const MAX_DURATION_MS = 9_223_372_036_854.776;

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isInt = (v: unknown, min: number, max: number): boolean => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
const allOf = (v: Record<string, unknown>, ok: (x: unknown, key: string) => boolean): boolean => Object.entries(v).every(([key, x]) => ok(x, key));

/** Checks per kind; kinds made by a factory (oneOf) are matched by their shape instead. */
const CHECKS = new Map<AnyKind, (v: unknown) => boolean>([
  [k.bool as AnyKind, (v) => typeof v === 'boolean'],
  [k.int32 as AnyKind, (v) => isInt(v, ...INT32)],
  [k.optionalInt32 as AnyKind, (v) => isInt(v, ...INT32)],
  [k.int64 as AnyKind, (v) => isInt(v, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)],
  [k.level as AnyKind, (v) => isInt(v, 0, 2 ** 32 - 1)],
  [k.float as AnyKind, (v) => typeof v === 'number' && Number.isFinite(v)],
  [k.duration as AnyKind, (v) => typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= MAX_DURATION_MS],
  [k.timeOrMetaDuration as AnyKind, (v) => typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= MAX_DURATION_MS],
  [k.string as AnyKind, (v) => typeof v === 'string'],
  [k.byteSize as AnyKind, (v) => typeof v === 'string'],
  [k.strings as AnyKind, (v) => Array.isArray(v) && v.every((x) => typeof x === 'string')],
  [k.mapStringString as AnyKind, (v) => isRecord(v) && allOf(v, (x) => typeof x === 'string')],
  [k.evictionMap as AnyKind, (v) => isRecord(v) && allOf(v, (x) => typeof x === 'string')],
  [k.mapStringBool as AnyKind, (v) => isRecord(v) && allOf(v, (x) => typeof x === 'boolean')],
  [
    k.headers as AnyKind,
    (v) => isRecord(v) && allOf(v, (x, name) => Array.isArray(x) && x.every((s) => typeof s === 'string' && headerProblem(name, s) === undefined)),
  ],
  [
    k.taints as AnyKind,
    (v) => Array.isArray(v) && v.every((t) => isRecord(t) && typeof t.key === 'string' && (TAINT_EFFECTS as readonly unknown[]).includes(t.effect) && (t.value === undefined || typeof t.value === 'string')),
  ],
  [
    k.reservedMemory as AnyKind,
    (v) => Array.isArray(v) && v.every((r) => isRecord(r) && isInt(r.numaNode, 0, INT32[1]) && isRecord(r.limits) && allOf(r.limits, (x) => typeof x === 'string')),
  ],
  [k.vmodule as AnyKind, (v) => Array.isArray(v) && v.every((e) => isRecord(e) && typeof e.filePattern === 'string' && isInt(e.verbosity, 0, INT32[1]))],
  [k.shutdownByPriority as AnyKind, (v) => Array.isArray(v) && v.every((e) => isRecord(e) && isInt(e.priority, ...INT32) && isInt(e.shutdownGracePeriodSeconds, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER))],
]);

export function domainProblem(kind: AnyKind, v: unknown): string | undefined {
  const known = CHECKS.get(kind);
  // oneOf kinds and flag-only kinds (such as --version) hold strings.
  const ok = known ? known(v) : typeof v === 'string';
  return ok ? undefined : `${JSON.stringify(v)} is not a valid ${kind.type}`;
}
