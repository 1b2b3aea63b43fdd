// The shape of the option table. An option is an `Opt` leaf; the configuration
// file's nesting is the nesting of plain objects holding those leaves, so a
// leaf's path in the tree *is* its field path in AgentConfiguration.
import type { Kind } from './kinds.js';

export type Section = 'identity' | 'pods' | 'runtime' | 'resources' | 'misc' | 'endpoints' | 'auth' | 'limits';

/** Help sections, in the order `--help` and the docs show them (the spec's section order). */
export const SECTIONS: ReadonlyArray<{ id: Section; title: string; spec: string }> = [
  { id: 'identity', title: 'Identity, registration, connection', spec: '2.1' },
  { id: 'pods', title: 'Pods, manifests, sync', spec: '2.2' },
  { id: 'runtime', title: 'Container runtime and images', spec: '2.3' },
  { id: 'resources', title: 'Resources, cgroups, eviction', spec: '2.4' },
  { id: 'misc', title: 'Networking, DNS, serving, logging, misc', spec: '2.5' },
  { id: 'endpoints', title: 'Endpoints', spec: '4' },
  { id: 'auth', title: 'Authentication', spec: '5' },
  { id: 'limits', title: 'Limits', spec: '8' },
];

/**
 * cfg: deprecated as a flag in favour of the config file. removal: removal
 * announced. sensitive: the value may carry credentials; whatever shows
 * configuration redacts it (redact.ts).
 */
export type Marker = 'cfg' | 'alpha' | 'beta' | 'removal' | 'sensitive';

export interface OptInit<T> {
  kind: Kind<T>;
  /** Long flag name without dashes; absent for fields that only the configuration file sets. */
  flag?: string;
  short?: string;
  /** Default when no --config file is given (the kubelet's flag-only defaults). */
  default: NoInfer<T>;
  /** Default when --config is given, where the v1beta1 schema's default differs. */
  fileDefault?: NoInfer<T>;
  /** In a --config file a Go zero value means "unset" (non-pointer field defaulted by v1beta1). */
  zeroIsUnset?: boolean;
  /** In a --config file or drop-in a negative number is read as this value (v1beta1 defaults podPidsLimit < 0 to -1). */
  negativeAs?: number;
  markers?: Marker[];
  /** Release named by a removal announcement. */
  removal?: string;
  section?: Section;
  help: string;
  /** Default text for --help when the default is not a plain value. */
  defaultText?: string;
  /** Gate that must be enabled for a non-default value to be accepted. */
  gate?: string;
}

export class Opt<T> {
  readonly kind: Kind<T>;
  readonly flag: string | undefined;
  readonly short: string | undefined;
  readonly default: T;
  readonly fileDefault: T;
  readonly zeroIsUnset: boolean;
  readonly negativeAs: number | undefined;
  readonly markers: readonly Marker[];
  readonly removal: string | undefined;
  readonly section: Section | undefined;
  readonly help: string;
  readonly defaultText: string | undefined;
  readonly gate: string | undefined;

  constructor(init: OptInit<T>) {
    this.kind = init.kind;
    this.flag = init.flag;
    this.short = init.short;
    this.default = init.default;
    this.fileDefault = 'fileDefault' in init ? (init.fileDefault as T) : init.default;
    this.zeroIsUnset = init.zeroIsUnset ?? false;
    this.negativeAs = init.negativeAs;
    this.markers = init.markers ?? [];
    this.removal = init.removal;
    this.section = init.section;
    this.help = init.help;
    this.defaultText = init.defaultText;
    this.gate = init.gate;
  }

  /** The value may carry credentials (marker `sensitive`): shown only through redact.ts. */
  get sensitive(): boolean {
    return this.markers.includes('sensitive');
  }

  get deprecated(): boolean {
    return this.markers.includes('cfg') || this.markers.includes('removal');
  }
}

export const opt = <T>(init: OptInit<T>): Opt<T> => new Opt(init);

/** A tree of options: plain objects whose leaves are `Opt`s. */
export interface OptTree {
  readonly [key: string]: Opt<never> | Opt<unknown> | OptTree;
}

/** The value type an option tree describes. */
export type ValueOf<S> = S extends Opt<infer T> ? T : { -readonly [K in keyof S]: ValueOf<S[K]> };

export interface Leaf {
  /** Dotted field path, e.g. `authentication.x509.clientCAFile`. */
  readonly path: string;
  readonly keys: readonly string[];
  readonly opt: Opt<unknown>;
}

const leafCache = new WeakMap<OptTree, readonly Leaf[]>();

/** Every leaf of a tree, depth-first in declaration order. The tables are constant, so this is computed once per tree. */
export function leaves(tree: OptTree): readonly Leaf[] {
  let out = leafCache.get(tree);
  if (out === undefined) {
    out = walk(tree, []);
    leafCache.set(tree, out);
  }
  return out;
}

function walk(tree: OptTree, prefix: readonly string[]): Leaf[] {
  const out: Leaf[] = [];
  for (const [key, node] of Object.entries(tree)) {
    const keys = [...prefix, key];
    if (node instanceof Opt) out.push({ path: keys.join('.'), keys, opt: node as Opt<unknown> });
    else out.push(...walk(node as OptTree, keys));
  }
  return out;
}

export function getIn(obj: unknown, keys: readonly string[]): unknown {
  let cur: unknown = obj;
  for (const k of keys) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

export function setIn(obj: Record<string, unknown>, keys: readonly string[], value: unknown): void {
  let cur = obj;
  for (const k of keys.slice(0, -1)) {
    const next = cur[k];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[keys[keys.length - 1]!] = value;
}

/** Builds a whole value object from the tree, taking each leaf's value from `pick`. */
export function build<S extends OptTree>(tree: S, pick: (leaf: Leaf) => unknown): ValueOf<S> {
  const out: Record<string, unknown> = {};
  for (const leaf of leaves(tree)) setIn(out, leaf.keys, pick(leaf));
  return out as ValueOf<S>;
}

/** Deep copy for plain data values (no functions, no class instances). */
export function clone<T>(v: T): T {
  return structuredClone(v);
}
