// Value kinds: how one option's value is read from a flag, read from a
// configuration file, written back to a file, and shown in --help. The option
// table pairs each option with one kind, so those four views cannot drift.
import type * as zod from 'zod';
import { formatDuration, parseDuration } from './values/duration.js';
import { parseGoBool, parseHeaders, parseMapStringBool, parseMapStringString } from './values/kv.js';
import { parseEvictionFlag } from './values/eviction.js';
import { mergeReservedMemory, parseReservedMemory, type ReservedMemory } from './values/resources.js';
import { parseTaints, type Taint } from './values/taints.js';
import { parseVmodule, formatVmodule } from '../log/vmodule.js';
import { ValueError } from '../errors.js';

/** The zod namespace, passed in by the schema builder. */
export type Z = typeof zod.z;

export interface Kind<T> {
  /** Type name shown in --help, as pflag shows it (`duration`, `int32`, `mapStringString`, ...). */
  readonly type: string;
  /** A boolean flag may be given without a value (`--enable-server` means true). */
  readonly isBool?: boolean;
  /**
   * Parses one occurrence of the flag. `prev` is what earlier occurrences on the
   * same command line produced: list and map flags accumulate, others replace.
   */
  parseFlag(text: string, prev: T | undefined): T;
  /**
   * Schema decoding the value as written in a configuration file. A function of
   * the zod namespace so that zod loads only when a file is actually read.
   */
  file(z: Z): zod.ZodType<T>;
  /** The value as written back into an AgentConfiguration file. */
  encode(v: T): unknown;
  /** The default as shown in --help; '' hides it. */
  show(v: T): string;
  /** Go zero value: in a --config file such a value counts as unset for fields the kubelet defaults that way. */
  isZero(v: T): boolean;
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

function parseInteger(text: string, min: number, max: number, type: string): number {
  const t = text.trim();
  if (!/^[+-]?\d+$/.test(t)) throw new ValueError(`invalid ${type} "${text}": not an integer`);
  const n = Number(t);
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new ValueError(`invalid ${type} "${text}": out of range [${min}, ${max}]`);
  }
  return n;
}

function splitList(text: string): string[] {
  return text === '' ? [] : text.split(',').map((s) => s.trim());
}

const isEmptyRecord = (v: object): boolean => Object.keys(v).length === 0;

export const bool: Kind<boolean> = {
  type: 'bool',
  isBool: true,
  parseFlag: (t) => parseGoBool(t),
  file: (z) => z.boolean(),
  encode: (v) => v,
  show: (v) => (v ? 'true' : ''),
  isZero: () => false, // booleans are pointers in the kubelet's v1beta1 schema: an explicit false is honoured
};

function integer(type: string, min: number, max: number): Kind<number> {
  return {
    type,
    parseFlag: (t) => parseInteger(t, min, max, type),
    file: (z) => z.number().int().min(min).max(max),
    encode: (v) => v,
    show: (v) => (v === 0 ? '' : String(v)),
    isZero: (v) => v === 0,
  };
}
export const int32 = integer('int32', INT32_MIN, INT32_MAX);
export const int64 = integer('int', Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);

export const float: Kind<number> = {
  type: 'float',
  parseFlag: (t) => {
    const n = Number(t);
    if (t.trim() === '' || !Number.isFinite(n)) throw new ValueError(`invalid float "${t}"`);
    return n;
  },
  file: (z) => z.number(),
  encode: (v) => v,
  show: (v) => (v === 0 ? '' : String(v)),
  isZero: (v) => v === 0,
};

export const string: Kind<string> = {
  type: 'string',
  parseFlag: (t) => t,
  file: (z) => z.string(),
  encode: (v) => v,
  show: (v) => (v === '' ? '' : `"${v}"`),
  isZero: (v) => v === '',
};

/** A string restricted to a fixed set of values (policies, drivers, modes). */
export function oneOf<const V extends string>(values: readonly V[]): Kind<V> {
  const check = (t: string): V => {
    if ((values as readonly string[]).includes(t)) return t as V;
    throw new ValueError(`invalid value "${t}": must be one of ${values.map((v) => `"${v}"`).join(', ')}`);
  };
  return {
    type: 'string',
    parseFlag: check,
    file: (z) => z.string().transform((s, ctx) => {
      if ((values as readonly string[]).includes(s)) return s as V;
      ctx.addIssue({ code: 'custom', message: `must be one of ${values.map((v) => `"${v}"`).join(', ')}, got "${s}"` });
      return z.NEVER;
    }),
    encode: (v) => v,
    show: (v) => (v === '' ? '' : `"${v}"`),
    isZero: (v) => v === '',
  };
}

/** Durations are kept as milliseconds; files and /configz use Go's canonical text (`1m0s`). */
export const duration: Kind<number> = {
  type: 'duration',
  parseFlag: (t) => parseDuration(t),
  file: (z) => z.string().transform((s, ctx) => {
    try {
      return parseDuration(s);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message });
      return z.NEVER;
    }
  }),
  encode: (v) => formatDuration(v),
  show: (v) => formatDuration(v),
  isZero: (v) => v === 0,
};

/** pflag StringSlice: the first occurrence replaces the default, later ones append. */
export const strings: Kind<string[]> = {
  type: 'strings',
  parseFlag: (t, prev) => [...(prev ?? []), ...splitList(t)],
  file: (z) => z.array(z.string()),
  encode: (v) => v,
  show: (v) => (v.length === 0 ? '' : `[${v.join(',')}]`),
  isZero: (v) => v.length === 0,
};

function recordKind<V>(type: string, parse: (t: string) => Record<string, V>, value: (z: Z) => zod.ZodType<V>): Kind<Record<string, V>> {
  return {
    type,
    // Map flags replace the whole map the first time they appear, then accumulate.
    parseFlag: (t, prev) => ({ ...(prev ?? {}), ...parse(t) }),
    file: (z) => z.record(z.string(), value(z)),
    encode: (v) => v,
    show: (v) =>
      isEmptyRecord(v)
        ? ''
        : Object.entries(v)
            .map(([k, x]) => `${k}=${String(x)}`)
            .join(','),
    isZero: (v) => isEmptyRecord(v),
  };
}

export const mapStringString = recordKind('mapStringString', (t) => parseMapStringString(t), (z) => z.string());
export const mapStringBool = recordKind('mapStringBool', (t) => parseMapStringBool(t), (z) => z.boolean());

/** `memory.available<100Mi,...` on the command line; a signal→value map in files. */
export const evictionMap: Kind<Record<string, string>> = {
  ...recordKind('mapStringString', (t) => parseEvictionFlag(t), (z) => z.string()),
  show: (v) =>
    Object.entries(v)
      .map(([k, x]) => `${k}<${x}`)
      .join(','),
};

/** `--manifest-url-header`: repeated same-name headers are kept in the order given. */
export const headers: Kind<Record<string, string[]>> = {
  type: 'colonSeparatedMultimapStringString',
  parseFlag: (t, prev) => {
    const out: Record<string, string[]> = {};
    for (const [k, vs] of Object.entries(prev ?? {})) out[k] = [...vs];
    for (const [name, value] of parseHeaders(t)) (out[name] ??= []).push(value);
    return out;
  },
  file: (z) => z.record(z.string(), z.array(z.string())),
  encode: (v) => v,
  show: () => '',
  isZero: (v) => isEmptyRecord(v),
};

const taintSchema = (z: Z) => z
  .object({
    key: z.string(),
    value: z.string().optional(),
    effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
    timeAdded: z.unknown().optional(),
  })
  .strict();

export const taints: Kind<Taint[]> = {
  type: 'taints',
  parseFlag: (t, prev) => [...(prev ?? []), ...parseTaints(t)],
  file: (z) => z.array(taintSchema(z)).transform((list) =>
    list.map((t) => {
      const out: Taint = { key: t.key, effect: t.effect };
      if (t.value !== undefined && t.value !== '') out.value = t.value;
      return out;
    }),
  ),
  encode: (v) => v.map((t) => (t.value === undefined ? { key: t.key, effect: t.effect } : { key: t.key, value: t.value, effect: t.effect })),
  show: () => '',
  isZero: (v) => v.length === 0,
};

export const reservedMemory: Kind<ReservedMemory[]> = {
  type: 'reservedMemory',
  parseFlag: (t, prev) => mergeReservedMemory(prev ?? [], parseReservedMemory(t)),
  file: (z) => z.array(z.object({ numaNode: z.number().int().min(0), limits: z.record(z.string(), z.string()) }).strict()),
  encode: (v) => v,
  show: () => '',
  isZero: (v) => v.length === 0,
};

export interface VmoduleEntry {
  filePattern: string;
  verbosity: number;
}

export const vmodule: Kind<VmoduleEntry[]> = {
  type: 'pattern=N,...',
  parseFlag: (t, prev) => [...(prev ?? []), ...parseVmodule(t)],
  file: (z) => z.array(z.object({ filePattern: z.string(), verbosity: z.number().int().min(0) }).strict()),
  encode: (v) => v,
  show: (v) => formatVmodule(v),
  isZero: (v) => v.length === 0,
};

/** klog verbosity: an unsigned 32-bit level. */
export const level: Kind<number> = { ...integer('Level', 0, 4294967295), type: 'Level' };

export interface ShutdownGracePeriodByPriority {
  priority: number;
  shutdownGracePeriodSeconds: number;
}

/** Config-file only: graceful node shutdown periods per pod priority. */
export const shutdownByPriority: Kind<ShutdownGracePeriodByPriority[]> = {
  type: 'shutdownGracePeriodByPodPriority',
  parseFlag: () => {
    throw new ValueError('shutdownGracePeriodByPodPriority can only be set in the configuration file');
  },
  file: (z) => z.array(z.object({ priority: z.number().int(), shutdownGracePeriodSeconds: z.number().int() }).strict()),
  encode: (v) => v,
  show: () => '',
  isZero: (v) => v.length === 0,
};
