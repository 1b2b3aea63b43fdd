// Field validation of a parsed request body against a kind's schema (§4.10):
// which fields the schema does not know, which values have the wrong JSON
// type, and the object with both removed. Pure; called by decodeJsonStrict /
// decodeYamlStrict once per body after parsing. Recursion follows the schema
// (bounded), never the input's own nesting.

import type { FieldError } from '../errors.js';
import { joinPath } from './errors.js';
import type { FieldPlan, MessagePlan, ValueKind } from './plan.js';
import { isBase64, parseRfc3339 } from './special.js';

export interface WalkResult {
  object: Record<string, unknown>;
  unknownFields: string[];
  typeErrors: FieldError[];
}

/** Upstream's quantity grammar (resource.ParseQuantity), checked here so a bad value is a field error, not a later surprise. */
const QUANTITY = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+|[KMGTPE]i|[numkMGTPE])?$/;

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

class Walker {
  readonly unknownFields: string[] = [];
  readonly typeErrors: FieldError[] = [];
  constructor(private readonly typeMetaKinds: ReadonlySet<string>) {}

  private bad(path: string, expected: string, v: unknown): undefined {
    const scalar = v === null || typeof v !== 'object';
    this.typeErrors.push({ type: 'FieldValueTypeInvalid', field: path, ...(scalar ? { value: v } : {}), detail: `expected ${expected}, got ${jsonType(v)}` });
    return undefined;
  }

  message(m: MessagePlan, v: unknown, path: string): Record<string, unknown> | undefined {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return this.bad(path, 'object', v);
    const out: Record<string, unknown> = {};
    const allowTypeMeta = this.typeMetaKinds.has(m.fullName);
    for (const key of Object.keys(v)) {
      const val = (v as Record<string, unknown>)[key];
      const f = m.jsonFields.get(key);
      const p = joinPath(path, key);
      if (f === undefined) {
        if (allowTypeMeta && (key === 'apiVersion' || key === 'kind')) {
          if (typeof val === 'string') out[key] = val;
          else if (val !== null) this.bad(p, 'string', val);
        } else this.unknownFields.push(p);
        continue;
      }
      if (val === null) continue;
      const r = this.field(f, val, p);
      if (r !== undefined) out[key] = r;
    }
    return out;
  }

  private field(f: FieldPlan, v: unknown, path: string): unknown {
    if (f.label === 'optional') return this.value(f.kind, f.message, v, path);
    if (f.label === 'repeated') {
      if (!Array.isArray(v)) return this.bad(path, 'array', v);
      const out: unknown[] = [];
      for (let i = 0; i < v.length; i++) {
        const item: unknown = v[i];
        if (item === null) {
          out.push(null);
          continue;
        }
        const r = this.value(f.kind, f.message, item, `${path}[${i}]`);
        if (r !== undefined) out.push(r);
      }
      return out;
    }
    if (typeof v !== 'object' || Array.isArray(v)) return this.bad(path, 'object', v);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(v as object)) {
      const val = (v as Record<string, unknown>)[key];
      const r = val === null ? null : this.value(f.kind, f.message, val, joinPath(path, key));
      if (r !== undefined) Object.defineProperty(out, key, { value: r, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  private value(kind: ValueKind, m: MessagePlan | undefined, v: unknown, path: string): unknown {
    switch (kind) {
      case 'string':
        return typeof v === 'string' ? v : this.bad(path, 'string', v);
      case 'bool':
        return typeof v === 'boolean' ? v : this.bad(path, 'boolean', v);
      case 'int32':
        return typeof v === 'number' && Number.isInteger(v) && v >= -2147483648 && v <= 2147483647 ? v : this.bad(path, 'int32', v);
      case 'int64':
        return typeof v === 'number' && Number.isSafeInteger(v) ? v : this.bad(path, 'int64', v);
      case 'bytes':
        return typeof v === 'string' && isBase64(v) ? v : this.bad(path, 'base64 string', v);
      case 'message':
        return this.message(m as MessagePlan, v, path);
      case 'time':
      case 'microtime':
        return typeof v === 'string' && parseRfc3339(v) !== undefined ? v : this.bad(path, 'RFC 3339 time string', v);
      case 'quantity':
        if (typeof v === 'number' && Number.isFinite(v)) return v;
        return typeof v === 'string' && QUANTITY.test(v) ? v : this.bad(path, 'quantity (string or number)', v);
      case 'intorstring':
        return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v)) ? v : this.bad(path, 'integer or string', v);
      case 'fieldsv1':
        return typeof v === 'object' && !Array.isArray(v) ? v : this.bad(path, 'object', v);
      case 'rawextension':
        return v;
      case 'stringlist':
        if (!Array.isArray(v)) return this.bad(path, 'array of strings', v);
        for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') this.bad(`${path}[${i}]`, 'string', v[i]);
        return v.filter((x) => typeof x === 'string');
    }
  }
}

/**
 * Checks `value` (a parsed body) against `plan`. `typeMetaKinds` names the
 * messages that carry apiVersion/kind in JSON (the served kinds: Go types with
 * an inline TypeMeta); elsewhere those keys are unknown fields.
 */
export function walkObject(plan: MessagePlan, value: unknown, typeMetaKinds: ReadonlySet<string>): WalkResult {
  const w = new Walker(typeMetaKinds);
  const object = w.message(plan, value, '') ?? {};
  return { object, unknownFields: w.unknownFields, typeErrors: w.typeErrors };
}
