// The configuration file's zod schema, generated from the option table. Every
// field is optional (files and drop-ins may be partial); unknown fields are
// found separately so they can be warnings rather than errors, as in the kubelet.
import { z } from 'zod';
import { Opt, type OptTree } from './spec.js';
import { configSpec } from './options.js';
import { closestName } from './suggest.js';

const leafSchemas = new WeakMap<Opt<unknown>, z.ZodType>();

function leafSchema(opt: Opt<unknown>): z.ZodType {
  let schema = leafSchemas.get(opt);
  if (schema === undefined) {
    schema = (opt.kind.file(z, { zeroIsUnset: opt.zeroIsUnset }) as z.ZodType).optional();
    leafSchemas.set(opt, schema);
  }
  return schema;
}

/**
 * The schema of the fields of `tree` present in `raw`: a file sets a handful
 * of ~130 fields, and building zod schemas for absent ones is most of the
 * cost of reading a small file. Absent fields need no checking; unknown ones
 * are reported by unknownFields().
 */
function objectFor(tree: OptTree, raw: Record<string, unknown>): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, value] of Object.entries(raw)) {
    const node = Object.hasOwn(tree, key) ? tree[key] : undefined;
    if (node === undefined) continue;
    if (node instanceof Opt) shape[key] = leafSchema(node as Opt<unknown>);
    else {
      const nested = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
      shape[key] = objectFor(node as OptTree, nested).optional();
    }
  }
  return z.object(shape);
}

/** Schema checking the fields an AgentConfiguration document (without apiVersion/kind) sets. */
export function fileSchema(raw: Record<string, unknown>): z.ZodObject {
  // Each schema parses one document: zod's JIT (code generated per object
  // schema) costs more than it saves here.
  z.config({ jitless: true });
  return objectFor(configSpec, raw);
}

export interface UnknownField {
  readonly keys: readonly (string | number)[];
  /** The known field at the same level the key most likely meant (`maxpods` → `maxPods`). */
  readonly suggestion?: string;
}

/**
 * Fields present in `raw` that the schema does not know, reported by path;
 * this includes unknown keys inside the items of lists of objects
 * (`registerWithTaints.0.colour`), which the item schemas strip.
 */
export function unknownFields(raw: Record<string, unknown>, tree: OptTree = configSpec, prefix: readonly (string | number)[] = []): UnknownField[] {
  const out: UnknownField[] = [];
  for (const [key, value] of Object.entries(raw)) {
    const node = Object.hasOwn(tree, key) ? tree[key] : undefined;
    // At the top, `apiversion:` most likely meant the header field the loader checks itself.
    if (node === undefined) out.push(withSuggestion([...prefix, key], key, prefix.length === 0 ? [...Object.keys(tree), 'apiVersion', 'kind'] : Object.keys(tree)));
    else if (node instanceof Opt) {
      const known = (node as Opt<unknown>).kind.itemKeys;
      if (known === undefined || !Array.isArray(value)) continue;
      value.forEach((item: unknown, i) => {
        if (item === null || typeof item !== 'object' || Array.isArray(item)) return;
        for (const k of Object.keys(item)) if (!known.includes(k)) out.push(withSuggestion([...prefix, key, i, k], k, known));
      });
    } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      out.push(...unknownFields(value as Record<string, unknown>, node as OptTree, [...prefix, key]));
    }
  }
  return out;
}

function withSuggestion(keys: readonly (string | number)[], key: string, known: readonly string[]): UnknownField {
  const suggestion = closestName(key, known);
  return suggestion === undefined ? { keys } : { keys, suggestion };
}

/** A zod issue (or a shape problem) at a field path of the document. */
export interface FieldIssue {
  readonly keys: readonly PropertyKey[];
  readonly message: string;
  /** zod's issue code (`invalid_type`, `invalid_union`, `custom`, ...). */
  readonly code?: string;
  /** The option whose value (or part of it) is wrong; absent for a misplaced mapping. */
  readonly opt?: Opt<unknown>;
  /** The depth of the option's own field in `keys` (issues inside a list or map go deeper). */
  readonly depth?: number;
}

export interface Decoded {
  /** Decoded values by field path, for the fields that decoded. */
  readonly values: Map<string, unknown>;
  readonly issues: FieldIssue[];
}

/**
 * Decodes the known fields of `raw` one option at a time, so one wrong field
 * neither hides the others' problems nor drops their values: a file with a
 * type error still yields its good fields (and, in resolve, their checks).
 */
export function decodeFields(raw: Record<string, unknown>, tree: OptTree = configSpec, prefix: readonly string[] = [], out: Decoded = { values: new Map(), issues: [] }): Decoded {
  z.config({ jitless: true });
  for (const [key, value] of Object.entries(raw)) {
    const node = Object.hasOwn(tree, key) ? tree[key] : undefined;
    if (node === undefined) continue;
    const keys = [...prefix, key];
    if (node instanceof Opt) {
      const opt = node as Opt<unknown>;
      const r = leafSchema(opt).safeParse(value);
      if (r.success) out.values.set(keys.join('.'), r.data);
      else for (const issue of r.error.issues) out.issues.push({ keys: [...keys, ...issue.path], message: issue.message, code: issue.code, opt, depth: keys.length });
    } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      decodeFields(value as Record<string, unknown>, node as OptTree, keys, out);
    } else {
      out.issues.push({ keys, message: `expected a mapping (the fields of ${keys.join('.')}), got ${describeValue(value)}` });
    }
  }
  return out;
}

/**
 * A value as an error message names it: `the number 10`, `the string "many"`,
 * `a list`; with `secret`, only its type (`a string`), for options that may
 * carry credentials.
 */
export function describeValue(v: unknown, secret = false): string {
  if (secret && (typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean')) return `a ${typeof v === 'bigint' ? 'number' : typeof v}`;
  if (typeof v === 'string') return `the string ${JSON.stringify(v)}`;
  if (typeof v === 'number' || typeof v === 'bigint') return `the number ${String(v)}`;
  if (typeof v === 'boolean') return `the boolean ${String(v)}`;
  if (Array.isArray(v)) return 'a list';
  if (v === null || v === undefined) return 'nothing';
  return 'a mapping';
}

/** YAML `key:` with no value is null; Go decodes it to the zero value, so treat it as absent. */
export function dropNulls(raw: Record<string, unknown>, tree: OptTree = configSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value === null) continue;
    const node = Object.hasOwn(tree, key) ? tree[key] : undefined;
    const v = node !== undefined && !(node instanceof Opt) && typeof value === 'object' && !Array.isArray(value) ? dropNulls(value as Record<string, unknown>, node as OptTree) : value;
    // defineProperty: a `__proto__` key stays an (unknown) field instead of becoming the prototype.
    Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
