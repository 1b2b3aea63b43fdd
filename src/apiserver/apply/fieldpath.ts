// Sets of field paths, the currency of server-side apply: which fields an
// object specifies, which fields each manager owns, which fields changed.
// A path is a list of element keys in their FieldsV1 spelling (`f:spec`,
// `k:{"name":"c"}`, `v:"a"`, `i:0`), so a set is a trie keyed by those
// strings and converts to and from `metadata.managedFields[].fieldsV1`
// without a separate representation. Pure and synchronous; sets are
// immutable once built (operations return new sets).

/** A JSON value as clients send it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

/** One element key in FieldsV1 spelling: `f:<name>`, `k:<json object>`, `v:<json>` or `i:<n>`. */
export type ElementKey = string;
/** A path from the object's root, one element key per step. */
export type FieldPath = readonly ElementKey[];

/** The FieldsV1 JSON form: `{"f:metadata":{"f:labels":{"f:app":{}}}}`. */
export interface FieldsV1 {
  [key: string]: FieldsV1;
}

/** A FieldsV1 document that cannot be read; `field` is where, below `fieldsV1`. */
export class FieldsV1Error extends Error {
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(`${field}: ${detail}`);
    this.name = 'FieldsV1Error';
  }
}

/** JSON with object keys sorted, so equal values spell equal element keys. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

export const fieldKey = (name: string): ElementKey => `f:${name}`;
export const valueKey = (v: unknown): ElementKey => `v:${canonicalJson(v)}`;
export const indexKey = (i: number): ElementKey => `i:${i}`;
export const keyKey = (fields: Readonly<Record<string, unknown>>): ElementKey => `k:${canonicalJson(fields)}`;

export type ParsedElement =
  | { kind: 'field'; name: string }
  | { kind: 'key'; fields: Record<string, JsonValue> }
  | { kind: 'value'; value: JsonValue }
  | { kind: 'index'; index: number };

/** Reads an element key; throws FieldsV1Error (naming `field`) when it is not one. */
export function parseElement(key: ElementKey, field = ''): ParsedElement {
  const body = key.slice(2);
  const bad = (why: string): FieldsV1Error => new FieldsV1Error(field, `invalid element ${JSON.stringify(key)}: ${why}`);
  switch (key.slice(0, 2)) {
    case 'f:':
      return { kind: 'field', name: body };
    case 'i:': {
      if (!/^(0|[1-9][0-9]*)$/.test(body)) throw bad('index must be a non-negative integer');
      return { kind: 'index', index: Number(body) };
    }
    case 'v:':
    case 'k:': {
      let parsed: JsonValue;
      try {
        parsed = JSON.parse(body) as JsonValue;
      } catch {
        throw bad('not valid JSON');
      }
      if (key.startsWith('v:')) return { kind: 'value', value: parsed };
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed) || Object.keys(parsed).length === 0) throw bad('key must be a non-empty JSON object');
      return { kind: 'key', fields: parsed };
    }
    default:
      throw bad('must start with f:, k:, v: or i:');
  }
}

const KIND_RANK = { field: 0, key: 1, value: 2, index: 3 } as const;

/** Upstream's total order on values: numbers, strings, booleans, lists, maps, null. */
function compareValues(a: unknown, b: unknown): number {
  const rank = (v: unknown): number => (typeof v === 'number' ? 0 : typeof v === 'string' ? 1 : typeof v === 'boolean' ? 2 : Array.isArray(v) ? 3 : v === null ? 5 : 4);
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const sa = canonicalJson(a);
  const sb = canonicalJson(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** The order FieldsV1 documents are written in (upstream's PathElement order). */
export function compareElements(a: ElementKey, b: ElementKey): number {
  const pa = parseElement(a);
  const pb = parseElement(b);
  if (pa.kind !== pb.kind) return KIND_RANK[pa.kind] - KIND_RANK[pb.kind];
  if (pa.kind === 'field' && pb.kind === 'field') return pa.name < pb.name ? -1 : pa.name > pb.name ? 1 : 0;
  if (pa.kind === 'index' && pb.kind === 'index') return pa.index - pb.index;
  if (pa.kind === 'value' && pb.kind === 'value') return compareValues(pa.value, pb.value);
  if (pa.kind === 'key' && pb.kind === 'key') {
    const ka = Object.keys(pa.fields).sort();
    const kb = Object.keys(pb.fields).sort();
    for (let i = 0; i < Math.max(ka.length, kb.length); i++) {
      const na = ka[i];
      const nb = kb[i];
      if (na === undefined) return -1;
      if (nb === undefined) return 1;
      if (na !== nb) return na < nb ? -1 : 1;
      const c = compareValues(pa.fields[na], pb.fields[nb]);
      if (c !== 0) return c;
    }
  }
  return 0;
}

/** A value as upstream prints it inside a path: strings quoted, the rest as JSON. */
const printValue = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v) : canonicalJson(v));

/** The path as conflict messages print it: `.spec.containers[name="c"].image`, `[=x]`, `[0]`. */
export function pathString(path: FieldPath): string {
  return path
    .map((k) => {
      const e = parseElement(k);
      switch (e.kind) {
        case 'field':
          return `.${e.name}`;
        case 'index':
          return `[${e.index}]`;
        case 'value':
          return `[=${printValue(e.value)}]`;
        case 'key':
          return `[${Object.keys(e.fields)
            .sort()
            .map((n) => `${n}=${printValue(e.fields[n])}`)
            .join(',')}]`;
      }
    })
    .join('');
}

interface Node {
  member: boolean;
  readonly children: Map<ElementKey, Node>;
}

const newNode = (): Node => ({ member: false, children: new Map() });
const isEmptyNode = (n: Node): boolean => !n.member && n.children.size === 0;

type Combine = (a: Node | undefined, b: Node | undefined) => Node | undefined;

/**
 * Combines two tries child by child; `member` decides membership, `onlyA`
 * whether b's children are visited. Nodes are never changed once built, so
 * a subtree only one side has is shared, not copied (for union and
 * difference alike the result there is that side's subtree as it is).
 */
function combine(member: (a: boolean, b: boolean) => boolean, onlyA: boolean): Combine {
  const walk: Combine = (a, b) => {
    if (a === undefined && (onlyA || b === undefined)) return undefined;
    if (b === undefined) return a;
    if (a === undefined) return b;
    const out = newNode();
    out.member = member(a?.member ?? false, b?.member ?? false);
    const keys = new Set<ElementKey>([...(a?.children.keys() ?? []), ...(onlyA ? [] : (b?.children.keys() ?? []))]);
    for (const k of keys) {
      const c = walk(a?.children.get(k), b?.children.get(k));
      if (c !== undefined && !isEmptyNode(c)) out.children.set(k, c);
    }
    return out;
  };
  return walk;
}

const unionNodes = combine((a, b) => a || b, false);
const differenceNodes = combine((a, b) => a && !b, true);
const intersectNodes: Combine = (a, b) => {
  if (a === undefined || b === undefined) return undefined;
  const out = newNode();
  out.member = a.member && b.member;
  for (const [k, ca] of a.children) {
    const c = intersectNodes(ca, b.children.get(k));
    if (c !== undefined && !isEmptyNode(c)) out.children.set(k, c);
  }
  return out;
};

/** A set of field paths (upstream's fieldpath.Set). */
export class FieldSet {
  private constructor(private readonly root: Node) {}

  static empty(): FieldSet {
    return new FieldSet(newNode());
  }

  static of(paths: Iterable<FieldPath>): FieldSet {
    const root = newNode();
    for (const p of paths) {
      if (p.length === 0) continue;
      let n = root;
      for (const k of p) {
        let c = n.children.get(k);
        if (c === undefined) {
          c = newNode();
          n.children.set(k, c);
        }
        n = c;
      }
      n.member = true;
    }
    return new FieldSet(root);
  }

  /** Reads a FieldsV1 document; throws FieldsV1Error naming the offending key. */
  static fromFieldsV1(doc: unknown, field = 'fieldsV1'): FieldSet {
    const read = (v: unknown, at: string, top: boolean): Node => {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new FieldsV1Error(at, 'must be a JSON object');
      const n = newNode();
      for (const [k, c] of Object.entries(v as Record<string, unknown>)) {
        const here = `${at}[${JSON.stringify(k)}]`;
        if (k === '.') {
          if (top) throw new FieldsV1Error(here, 'the root cannot be a member');
          if (c === null || typeof c !== 'object' || Array.isArray(c) || Object.keys(c).length !== 0) throw new FieldsV1Error(here, 'must be {}');
          n.member = true;
          continue;
        }
        parseElement(k, here);
        const child = read(c, here, false);
        if (child.children.size === 0) child.member = true;
        n.children.set(k, child);
      }
      return n;
    };
    return new FieldSet(read(doc, field, true));
  }

  /** The FieldsV1 form, keys in upstream's order (`.` first). */
  toFieldsV1(): FieldsV1 {
    const write = (n: Node): FieldsV1 => {
      const out: FieldsV1 = {};
      if (n.member && n.children.size > 0) out['.'] = {};
      for (const k of [...n.children.keys()].sort(compareElements)) out[k] = write(n.children.get(k)!);
      return out;
    };
    return write(this.root);
  }

  isEmpty(): boolean {
    return isEmptyNode(this.root);
  }

  has(path: FieldPath): boolean {
    const n = this.nodeAt(path);
    return n !== undefined && n.member;
  }

  /** Whether some member lies strictly below `path`. */
  hasBelow(path: FieldPath): boolean {
    const n = this.nodeAt(path);
    return n !== undefined && n.children.size > 0;
  }

  /** Every member path, in FieldsV1 order (parents before children). */
  paths(): FieldPath[] {
    const out: FieldPath[] = [];
    const walk = (n: Node, at: ElementKey[]): void => {
      if (n.member && at.length > 0) out.push([...at]);
      for (const k of [...n.children.keys()].sort(compareElements)) walk(n.children.get(k)!, [...at, k]);
    };
    walk(this.root, []);
    return out;
  }

  union(other: FieldSet): FieldSet {
    if (other.isEmpty()) return this;
    if (this.isEmpty()) return other;
    return new FieldSet(unionNodes(this.root, other.root) ?? newNode());
  }

  difference(other: FieldSet): FieldSet {
    if (other.isEmpty() || this.isEmpty()) return this;
    return new FieldSet(differenceNodes(this.root, other.root) ?? newNode());
  }

  intersection(other: FieldSet): FieldSet {
    return new FieldSet(intersectNodes(this.root, other.root) ?? newNode());
  }

  /** This set without every path that is in `prefixes` or lies below one of its members. */
  withoutPrefixes(prefixes: FieldSet): FieldSet {
    const walk = (a: Node, p: Node | undefined): Node => {
      const out = newNode();
      out.member = a.member;
      for (const [k, c] of a.children) {
        const pc = p?.children.get(k);
        if (pc?.member === true) continue;
        const kept = pc === undefined ? c : walk(c, pc);
        if (!isEmptyNode(kept)) out.children.set(k, kept);
      }
      return out;
    };
    return new FieldSet(walk(this.root, prefixes.root));
  }

  equals(other: FieldSet): boolean {
    return this.difference(other).isEmpty() && other.difference(this).isEmpty();
  }

  private nodeAt(path: FieldPath): Node | undefined {
    let n: Node | undefined = this.root;
    for (const k of path) {
      n = n.children.get(k);
      if (n === undefined) return undefined;
    }
    return n;
  }
}
