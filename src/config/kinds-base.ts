// The pieces every value kind is built from (kinds.ts): the Kind contract,
// integer bounds, own-property records and list splitting, and how a value
// reads as a flag argument. Kept apart so kinds.ts holds only the kinds.
import type * as zod from 'zod';
import { parseGoInt } from './values/integer.js';

/** The zod namespace, passed in by the schema builder. */
export type Z = typeof zod.z;

/** How the option table entry reads its file value (see Opt). */
export interface FileOptions {
  /** The field counts a Go zero value as unset (v1beta1 defaulting): an enum accepts '' for it. */
  readonly zeroIsUnset?: boolean;
}

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
  file(z: Z, opts?: FileOptions): zod.ZodType<T>;
  /** The value as written back into an AgentConfiguration file. */
  encode(v: T): unknown;
  /** The value as a flag argument (`k=v,k2=v2` for maps); by default String(encode(v)). */
  flagText?(v: T): string;
  /**
   * What a configuration file must give, for the error when it gives another
   * type (`syncFrequency: 10`): the file's counterpart of the flag parser's hint.
   * Without it the schema's own message is shown.
   */
  readonly fileHint?: string;
  /** The same for one entry of a list or map value (`systemReserved: {memory: 1}`). */
  readonly fileItemHint?: string;
  /** Lists of objects: the keys an item may have; other keys are reported as unknown fields. */
  readonly itemKeys?: readonly string[];
  /** Whether two values mean the same (default: same JSON); e.g. `0Ki` and `0` are the same size. */
  same?(a: T, b: T): boolean;
  /** The default as shown in --help; '' hides it. */
  show(v: T): string;
  /** Go zero value: in a --config file such a value counts as unset for fields the kubelet defaults that way. */
  isZero(v: T): boolean;
}

export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;

export function parseInteger(text: string, min: number, max: number, type: string): number {
  return Number(parseGoInt(text, BigInt(min), BigInt(max), type));
}

/** Sets `out[key]` as an own property, also for `__proto__` (plain assignment would change the prototype). */
export function putOwn<V>(out: Record<string, V>, key: string, value: V): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A string-keyed record schema that keeps every key, `__proto__` included
 * (z.record drops it). Issues name the key, as z.record's do.
 */
export function safeRecord<V>(z: Z, value: zod.ZodType<V>): zod.ZodType<Record<string, V>> {
  return z.unknown().transform((input, ctx) => {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      ctx.addIssue({ code: 'custom', message: `Invalid input: expected record, received ${Array.isArray(input) ? 'array' : input === null ? 'null' : typeof input}` });
      return z.NEVER;
    }
    const out: Record<string, V> = {};
    for (const [k, v] of Object.entries(input)) {
      const r = value.safeParse(v);
      if (r.success) putOwn(out, k, r.data);
      else for (const issue of r.error.issues) ctx.addIssue({ ...issue, path: [k, ...issue.path] } as never);
    }
    return out;
  }) as unknown as zod.ZodType<Record<string, V>>;
}

/** A flag argument as an operator would type it: the text itself when it is shell-safe, else single-quoted. */
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:=,@%+-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/** The flag argument that sets `v` (what a `--flag=` needs after the `=`), not yet shell-quoted. */
export function flagTextOf<T>(kind: Kind<T>, v: T): string {
  if (kind.flagText) return kind.flagText(v);
  const e = kind.encode(v);
  return typeof e === 'string' ? e : JSON.stringify(e);
}

/**
 * `a, b` → ['a', 'b']. Blank text is the empty list, as for the other list
 * flags: read as [''] it could not be written back (`--flag=` means []).
 */
export function splitList(text: string): string[] {
  return text.trim() === '' ? [] : text.split(',').map((s) => s.trim());
}

export const isEmptyRecord = (v: object): boolean => Object.keys(v).length === 0;
