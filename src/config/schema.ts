// The configuration file's zod schema, generated from the option table. Every
// field is optional (files and drop-ins may be partial); unknown fields are
// found separately so they can be warnings rather than errors, as in the kubelet.
import { z } from 'zod';
import { Opt, type OptTree } from './spec.js';
import { configSpec } from './options.js';

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
    if (node === undefined) out.push({ keys: [...prefix, key] });
    else if (node instanceof Opt) {
      const known = (node as Opt<unknown>).kind.itemKeys;
      if (known === undefined || !Array.isArray(value)) continue;
      value.forEach((item: unknown, i) => {
        if (item === null || typeof item !== 'object' || Array.isArray(item)) return;
        for (const k of Object.keys(item)) if (!known.includes(k)) out.push({ keys: [...prefix, key, i, k] });
      });
    } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      out.push(...unknownFields(value as Record<string, unknown>, node as OptTree, [...prefix, key]));
    }
  }
  return out;
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
