// One merge with an explicit layer order:
//   built-in defaults < --config < drop-ins (lexical) < flags given on the command line
// Each field remembers which layer set it; --print-config and /configz show that.
import { ConfigFileError, ValidationError, type AgentError } from '../errors.js';
import { configSpec, type AgentConfiguration } from './options.js';
import { flagSpec, type AgentFlags } from './flag-options.js';
import { FileLayerError, type FileLayer } from './layer.js';
import { build, clone, leaves, type Leaf } from './spec.js';

export type Source =
  | { readonly kind: 'default' }
  | { readonly kind: 'file'; readonly file: string }
  | { readonly kind: 'dropin'; readonly file: string }
  | { readonly kind: 'flag'; readonly flag: string };

export function describeSource(s: Source): string {
  switch (s.kind) {
    case 'default':
      return 'default';
    case 'file':
      return `--config ${s.file}`;
    case 'dropin':
      return `drop-in ${s.file}`;
    case 'flag':
      return `flag --${s.flag}`;
  }
}

/** A flag given on the command line, already parsed to its value. */
export interface GivenFlag {
  readonly leaf: Leaf;
  readonly value: unknown;
}

export interface ResolveInput {
  /** Flags given on the command line that map to AgentConfiguration fields. */
  readonly configFlags: readonly GivenFlag[];
  /** Flag-only options given on the command line. */
  readonly otherFlags: readonly GivenFlag[];
  readonly env: Readonly<Record<string, string | undefined>>;
}

export interface ResolvedConfig {
  readonly config: AgentConfiguration;
  readonly flags: AgentFlags;
  /** Where each AgentConfiguration field's value came from, by field path. */
  readonly provenance: ReadonlyMap<string, Source>;
  /** Files read, in the order applied. */
  readonly files: readonly string[];
  readonly warnings: readonly string[];
}

export const DROPIN_ENV = 'AGENT_CONFIG_DROPIN_DIR_ALPHA';

/**
 * Problems in the files. `partial` is the configuration from what did decode
 * (defaults where a field was wrong), with every file's warnings, so the
 * caller can run the field checks as well and report all in one pass.
 * `complete` is false when a file or directory could not be read or parsed at
 * all: the partial configuration then lacks whole files, and checking it
 * would report problems the operator does not have.
 */
export class ResolveError extends ValidationError {
  override name = 'ResolveError';
  constructor(
    problems: readonly AgentError[],
    readonly partial: ResolvedConfig,
    readonly complete: boolean,
  ) {
    super(problems);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Resolves the effective configuration. Throws ValidationError listing every file problem found. */
export async function resolveConfig(input: ResolveInput): Promise<ResolvedConfig> {
  const flags = build(flagSpec, (leaf) => clone(leaf.opt.default));
  for (const g of input.otherFlags) setLeaf(flags, g.leaf, g.value);

  const withFile = flags.config !== '';
  const values = new Map<string, unknown>();
  const provenance = new Map<string, Source>();
  for (const leaf of leaves(configSpec)) {
    values.set(leaf.path, clone(withFile ? leaf.opt.fileDefault : leaf.opt.default));
    provenance.set(leaf.path, { kind: 'default' });
  }

  const layers: FileLayer[] = [];
  const problems: AgentError[] = [];
  let complete = true;
  const collect = async (load: () => Promise<void>): Promise<void> => {
    try {
      await load();
    } catch (e) {
      // A file with field problems still gives its good fields (see ResolveError).
      if (e instanceof FileLayerError) layers.push(e.layer);
      else complete = false;
      if (e instanceof ValidationError) problems.push(...e.problems);
      else if (e instanceof ConfigFileError) problems.push(e);
      else throw e;
    }
  };

  // yaml and zod load only when there is a file to read: a flag-only start stays fast.
  const load = withFile || flags.configDir !== '' ? await import('./load.js') : undefined;
  if (withFile && load) await collect(async () => void layers.push(await load.loadConfigFile(flags.config, 'file')));
  if (flags.configDir !== '') {
    if (input.env[DROPIN_ENV] === undefined) {
      complete = false;
      problems.push(new ConfigFileError(`--config-dir "${flags.configDir}" is given but the environment variable ${DROPIN_ENV} is not set; set it (to any value) to enable drop-in configuration`, { flag: '--config-dir', file: flags.configDir }));
    } else if (load) {
      await collect(async () => {
        for (const file of await load.listDropIns(flags.configDir)) await collect(async () => void layers.push(await load.loadConfigFile(file, 'dropin')));
      });
    }
  }

  const byPath = new Map(leaves(configSpec).map((l) => [l.path, l]));
  const derived = new Set<string>();
  for (const layer of layers) applyFileLayer(layer, byPath, values, provenance, derived);

  for (const g of input.configFlags) {
    const prev = values.get(g.leaf.path);
    // Feature gates merge: gates from files that the flag does not mention stay.
    values.set(g.leaf.path, g.leaf.path === 'featureGates' && isRecord(prev) && isRecord(g.value) ? { ...prev, ...g.value } : g.value);
    provenance.set(g.leaf.path, { kind: 'flag', flag: g.leaf.opt.flag ?? g.leaf.path });
  }

  const config = build(configSpec, (leaf) => values.get(leaf.path));
  const resolved: ResolvedConfig = { config, flags, provenance, files: layers.map((l) => l.file), warnings: layers.flatMap((l) => l.warnings) };
  if (problems.length > 0) throw new ResolveError(problems, resolved, complete);
  return resolved;
}

/**
 * Applies one file layer. Each file (the --config file and every drop-in) is
 * read as v1beta1 decoding reads it: a Go zero value in a field the schema
 * defaults that way means "unset" and leaves the value below alone, and a
 * negative podPidsLimit means -1. `derived` holds fields whose value a defaulting rule took
 * from another field; a later layer may derive them again.
 */
function applyFileLayer(layer: FileLayer, byPath: ReadonlyMap<string, Leaf>, values: Map<string, unknown>, provenance: Map<string, Source>, derived: Set<string>): void {
  const source: Source = { kind: layer.kind, file: layer.file };
  for (const [path, keys] of layer.deletions) {
    if (layer.kind !== 'dropin') continue;
    const prev = values.get(path);
    if (!isRecord(prev)) continue;
    const next = { ...prev };
    for (const key of keys) delete next[key];
    values.set(path, next);
    provenance.set(path, source);
  }
  const sets = new Set<string>();
  for (const [path, read] of layer.values) {
    const { opt } = byPath.get(path)!;
    if (opt.zeroIsUnset && opt.kind.isZero(read)) continue;
    const value = opt.negativeAs !== undefined && typeof read === 'number' && read < 0 ? opt.negativeAs : read;
    sets.add(path);
    const prev = values.get(path);
    // Drop-ins are JSON merge patches: maps merge key by key, everything else replaces.
    values.set(path, layer.kind === 'dropin' && isRecord(prev) && isRecord(value) ? { ...prev, ...value } : value);
    provenance.set(path, source);
    derived.delete(path);
  }
  // v1beta1 defaulting rules that take one field's default from another field the layer sets.
  const follow = (target: string, value: unknown): void => {
    if (sets.has(target)) return;
    // Only a value that is still a default (or was itself derived) follows; an explicit one stays.
    const from = provenance.get(target)?.kind ?? 'default';
    if (from !== 'default' && !derived.has(target)) return;
    if (from === 'default' && JSON.stringify(values.get(target)) === JSON.stringify(value)) return;
    values.set(target, value);
    provenance.set(target, source);
    derived.add(target);
  };
  // The node status is reported as often as it is updated when only the update frequency is set.
  if (sets.has('nodeStatusUpdateFrequency')) follow('nodeStatusReportFrequency', values.get('nodeStatusUpdateFrequency'));
  // Image pulls run in parallel when a limit of 2 or more is set and serializeImagePulls is not.
  const parallel = layer.values.get('maxParallelImagePulls');
  if (sets.has('maxParallelImagePulls') && typeof parallel === 'number') follow('serializeImagePulls', parallel < 2);
}

function setLeaf(obj: object, leaf: Leaf, value: unknown): void {
  let cur = obj as Record<string, unknown>;
  for (const k of leaf.keys.slice(0, -1)) cur = cur[k] as Record<string, unknown>;
  cur[leaf.keys[leaf.keys.length - 1]!] = value;
}
