// Value kinds: how one option's value is read from a flag, read from a
// configuration file, written back to a file, and shown in --help. The option
// table pairs each option with one kind, so those four views cannot drift.
import type * as zod from 'zod';
import { INT32_MAX, INT32_MIN, isEmptyRecord, parseInteger, putOwn, safeRecord, splitList, type FileOptions, type Kind, type Z } from './kinds-base.js';
import { formatDuration, parseDuration } from './values/duration.js';
import { headerProblem, parseGoBool, parseHeaders, parseMapStringBool, parseMapStringString } from './values/kv.js';
import { parseEvictionFlag } from './values/eviction.js';
import { mergeReservedMemory, parseReservedMemory, type ReservedMemory } from './values/resources.js';
import { parseTaints, type Taint } from './values/taints.js';
import { parseVmodule, formatVmodule } from '../log/vmodule.js';
import { ValueError } from '../errors.js';
import { parseByteSize } from './values/quantity.js';

export type { FileOptions, Kind, Z } from './kinds-base.js';
export { flagTextOf, putOwn, shellQuote } from './kinds-base.js';

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
    // strconv.ParseFloat's decimal form; Number() would also take ' 5', '0x10' and '0b1', which Go rejects.
    const n = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(t) ? Number(t) : Number.NaN;
    if (!Number.isFinite(n)) throw new ValueError(`invalid float "${t}"`);
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
    file: (z, opts) => z.string().transform((s, ctx) => {
      if ((values as readonly string[]).includes(s)) return s as V;
      // v1beta1 defaults an empty enum field: '' means "unset" there, and resolve drops it.
      if (s === '' && opts?.zeroIsUnset) return s as V;
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
  fileHint: 'a duration with a unit, as text such as "10s", "1m30s" or "2h45m" (units: ns, us, ms, s, m, h)',
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

/**
 * component-base's TimeOrMetaDuration (`logging.flushFrequency`): in a file
 * either duration text or an integer number of nanoseconds.
 */
export const timeOrMetaDuration: Kind<number> = {
  ...duration,
  fileHint: 'a duration with a unit, as text such as "5s" or "100ms", or an integer number of nanoseconds',
  file: (z) => z.union([z.string(), z.number().int()]).transform((v, ctx) => {
    try {
      return parseDuration(typeof v === 'number' ? `${v}ns` : v);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message });
      return z.NEVER;
    }
  }),
};

/**
 * A size in bytes kept as the text the operator wrote (`512`, `1K`, `2Ki`); a
 * file may give a plain number. `0Ki` and `0` are the same size.
 */
export const byteSize: Kind<string> = {
  type: 'string',
  fileHint: 'a size in bytes such as 512, "1K" (1000) or "2Ki" (2048)',
  parseFlag: (t) => t,
  file: (z) => z.union([z.string(), z.number()]).transform((v) => String(v)),
  encode: (v) => v,
  show: (v) => (v === '' ? '' : `"${v}"`),
  isZero: (v) => v === '',
  same: (a, b) => {
    if (a === b) return true;
    try {
      return parseByteSize(a) === parseByteSize(b);
    } catch {
      return false;
    }
  },
};

/**
 * An optional positive int32 (a pointer in v1beta1, such as
 * maxParallelImagePulls): 0 stands for "unset" and is written as null; an
 * explicit 0 from a file is kept (validation rejects it through its provenance).
 */
export const optionalInt32: Kind<number> = {
  type: 'int32',
  parseFlag: (t) => parseInteger(t, INT32_MIN, INT32_MAX, 'int32'),
  file: (z) => z.number().int().min(INT32_MIN).max(INT32_MAX),
  encode: (v) => (v === 0 ? null : v),
  // Not flagTextOf's default: the encoded null would read back as an invalid int32.
  flagText: (v) => String(v),
  show: () => '',
  isZero: () => false,
};

/** pflag StringSlice: the first occurrence replaces the default, later ones append. */
export const strings: Kind<string[]> = {
  type: 'strings',
  fileHint: 'a list of strings, such as [a, b]',
  fileItemHint: 'a string (put a number in quotes: "1")',
  parseFlag: (t, prev) => [...(prev ?? []), ...splitList(t)],
  file: (z) => z.array(z.string()),
  encode: (v) => v,
  flagText: (v) => v.join(','),
  show: (v) => (v.length === 0 ? '' : `[${v.join(',')}]`),
  isZero: (v) => v.length === 0,
};

function recordKind<V>(type: string, parse: (t: string) => Record<string, V>, value: (z: Z) => zod.ZodType<V>, hints: { fileHint: string; fileItemHint: string }): Kind<Record<string, V>> {
  return {
    type,
    ...hints,
    // Map flags replace the whole map the first time they appear, then accumulate.
    // Spreading keeps own `__proto__` keys (they are reported later, not lost).
    parseFlag: (t, prev) => ({ ...(prev ?? {}), ...parse(t) }),
    file: (z) => safeRecord(z, value(z)),
    encode: (v) => v,
    flagText: (v) =>
      Object.entries(v)
        .map(([k, x]) => `${k}=${String(x)}`)
        .join(','),
    show: (v) =>
      isEmptyRecord(v)
        ? ''
        : Object.entries(v)
            .map(([k, x]) => `${k}=${String(x)}`)
            .join(','),
    isZero: (v) => isEmptyRecord(v),
  };
}

export const mapStringString = recordKind('mapStringString', (t) => parseMapStringString(t), (z) => z.string(), {
  fileHint: 'a mapping of names to strings, such as {cpu: "500m", memory: 1Gi}',
  fileItemHint: 'a string (put a number in quotes: "1")',
});
export const mapStringBool = recordKind('mapStringBool', (t) => parseMapStringBool(t), (z) => z.boolean(), {
  fileHint: 'a mapping of names to true or false, such as {NodeSwap: true}',
  fileItemHint: 'true or false',
});

/** `memory.available<100Mi,...` on the command line; a signal→value map in files. */
export const evictionMap: Kind<Record<string, string>> = {
  ...recordKind('mapStringString', (t) => parseEvictionFlag(t), (z) => z.string(), {
    fileHint: 'a mapping of eviction signals to thresholds, such as {memory.available: 100Mi, nodefs.available: 10%}',
    fileItemHint: 'a threshold as a string, such as "100Mi" or "10%"',
  }),
  show: (v) =>
    Object.entries(v)
      .map(([k, x]) => `${k}<${x}`)
      .join(','),
  flagText: (v) =>
    Object.entries(v)
      .map(([k, x]) => `${k}<${x}`)
      .join(','),
};

/** `--manifest-url-header`: repeated same-name headers are kept in the order given. */
export const headers: Kind<Record<string, string[]>> = {
  type: 'colonSeparatedMultimapStringString',
  fileHint: 'a mapping of header names to lists of values, such as {X-Token: [value]}',
  fileItemHint: 'a list of values, such as [value]',
  parseFlag: (t, prev) => {
    // Header names such as `constructor` or `__proto__` are plain keys here.
    const out: Record<string, string[]> = {};
    for (const [k, vs] of Object.entries(prev ?? {})) putOwn(out, k, [...vs]);
    for (const [name, value] of parseHeaders(t)) {
      if (Object.hasOwn(out, name)) out[name]!.push(value);
      else putOwn(out, name, [value]);
    }
    return out;
  },
  // The same rules as the flag: a header the HTTP client would refuse fails every poll of the URL.
  file: (z) =>
    safeRecord(z, z.array(z.string())).superRefine((map, ctx) => {
      for (const [name, values] of Object.entries(map)) {
        values.forEach((value, i) => {
          const bad = headerProblem(name, value);
          if (bad !== undefined) ctx.addIssue({ code: 'custom', message: bad, path: [name, i] });
        });
      }
    }),
  encode: (v) => v,
  flagText: (v) =>
    Object.entries(v)
      .flatMap(([k, vs]) => vs.map((x) => `${k}:${x}`))
      .join(','),
  show: () => '',
  isZero: (v) => isEmptyRecord(v),
};

// Unknown keys in list items are stripped here and reported as warnings (schema.ts unknownFields).
const taintSchema = (z: Z) =>
  z.object({
    key: z.string(),
    value: z.string().optional(),
    effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
    // As the kubelet's validation: a registration taint carries no timestamp.
    timeAdded: z.unknown().optional().refine((v) => v === undefined || v === null, { message: 'timeAdded must not be set' }),
  });

export const taints: Kind<Taint[]> = {
  type: 'taints',
  fileHint: 'a list of taints, such as [{key: dedicated, value: infra, effect: NoSchedule}]',
  parseFlag: (t, prev) => [...(prev ?? []), ...parseTaints(t)],
  file: (z) => z.array(taintSchema(z)).transform((list) =>
    list.map((t) => {
      const out: Taint = { key: t.key, effect: t.effect };
      if (t.value !== undefined && t.value !== '') out.value = t.value;
      return out;
    }),
  ),
  itemKeys: ['key', 'value', 'effect', 'timeAdded'],
  encode: (v) => v.map((t) => (t.value === undefined ? { key: t.key, effect: t.effect } : { key: t.key, value: t.value, effect: t.effect })),
  flagText: (v) => v.map((t) => `${t.key}${t.value === undefined ? '' : `=${t.value}`}:${t.effect}`).join(','),
  show: () => '',
  isZero: (v) => v.length === 0,
};

export const reservedMemory: Kind<ReservedMemory[]> = {
  type: 'reservedMemory',
  fileHint: 'a list such as [{numaNode: 0, limits: {memory: 1Gi}}]',
  parseFlag: (t, prev) => mergeReservedMemory(prev ?? [], parseReservedMemory(t)),
  // NumaNode is an int32 in the kubelet's schema; larger numbers fail to decode there.
  file: (z) => z.array(z.object({ numaNode: z.number().int().min(0).max(INT32_MAX), limits: safeRecord(z, z.string()) })),
  itemKeys: ['numaNode', 'limits'],
  encode: (v) => v,
  flagText: (v) =>
    v
      .map((r) => `${r.numaNode}:${Object.entries(r.limits).map(([k, x]) => `${k}=${x}`).join(',')}`)
      .join(';'),
  show: () => '',
  isZero: (v) => v.length === 0,
};

export interface VmoduleEntry {
  filePattern: string;
  verbosity: number;
}

export const vmodule: Kind<VmoduleEntry[]> = {
  type: 'pattern=N,...',
  fileHint: 'a list such as [{filePattern: sync, verbosity: 4}]',
  parseFlag: (t, prev) => [...(prev ?? []), ...parseVmodule(t)],
  file: (z) => z.array(z.object({ filePattern: z.string(), verbosity: z.number().int().min(0) })),
  itemKeys: ['filePattern', 'verbosity'],
  encode: (v) => v,
  flagText: (v) => formatVmodule(v),
  show: (v) => formatVmodule(v),
  isZero: (v) => v.length === 0,
};

/**
 * klog verbosity: an unsigned 32-bit level in files (validation caps it at
 * the int32 maximum, as component-base does); klog's flag reads it in decimal.
 */
export const level: Kind<number> = {
  ...integer('Level', 0, 4294967295),
  parseFlag: (t) => {
    if (!/^\d+$/.test(t) || Number(t) > 4294967295) throw new ValueError(`invalid Level "${t}": expected a non-negative decimal number`);
    return Number(t);
  },
};

export interface ShutdownGracePeriodByPriority {
  priority: number;
  shutdownGracePeriodSeconds: number;
}

/** Config-file only: graceful node shutdown periods per pod priority. */
export const shutdownByPriority: Kind<ShutdownGracePeriodByPriority[]> = {
  type: 'shutdownGracePeriodByPodPriority',
  fileHint: 'a list such as [{priority: 100000, shutdownGracePeriodSeconds: 30}]',
  parseFlag: () => {
    throw new ValueError('shutdownGracePeriodByPodPriority can only be set in the configuration file');
  },
  // Priority is an int32 in the kubelet's schema, the period an int64 (here: a safe integer).
  file: (z) => z.array(z.object({ priority: z.number().int().min(INT32_MIN).max(INT32_MAX), shutdownGracePeriodSeconds: z.number().int() })),
  itemKeys: ['priority', 'shutdownGracePeriodSeconds'],
  encode: (v) => v,
  show: () => '',
  isZero: (v) => v.length === 0,
};
