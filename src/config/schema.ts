// The configuration file's zod schema, generated from the option table. Every
// field is optional (files and drop-ins may be partial); unknown fields are
// found separately so they can be warnings rather than errors, as in the kubelet.
import { z } from 'zod';
import { Opt, type OptTree } from './spec.js';
import { configSpec } from './options.js';

function objectFor(tree: OptTree): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, node] of Object.entries(tree)) {
    shape[key] = node instanceof Opt ? (node.kind.file as z.ZodType).optional() : objectFor(node as OptTree).optional();
  }
  return z.object(shape);
}

let cached: z.ZodObject | undefined;

/** Schema of an AgentConfiguration document without apiVersion/kind; built on first use. */
export function fileSchema(): z.ZodObject {
  cached ??= objectFor(configSpec);
  return cached;
}

export interface UnknownField {
  readonly keys: readonly (string | number)[];
}

/** Fields present in `raw` that the schema does not know, reported by path. */
export function unknownFields(raw: Record<string, unknown>, tree: OptTree = configSpec, prefix: string[] = []): UnknownField[] {
  const out: UnknownField[] = [];
  for (const [key, value] of Object.entries(raw)) {
    const node = tree[key];
    if (node === undefined) out.push({ keys: [...prefix, key] });
    else if (!(node instanceof Opt) && value !== null && typeof value === 'object' && !Array.isArray(value)) {
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
    const node = tree[key];
    if (node !== undefined && !(node instanceof Opt) && typeof value === 'object' && !Array.isArray(value)) {
      out[key] = dropNulls(value as Record<string, unknown>, node as OptTree);
    } else out[key] = value;
  }
  return out;
}
