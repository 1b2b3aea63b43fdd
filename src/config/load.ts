// Reads one AgentConfiguration file (YAML or JSON) into a layer of decoded
// field values. Every problem names the file, the field path and the line.
import { lstat, readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { LineCounter, visit, isMap, isNode, isPair, isScalar, parseAllDocuments, stringify, type Document, type DocumentOptions, type ParseOptions, type SchemaOptions, type Tags } from 'yaml';
import { ConfigFileError, ValidationError, type AgentError } from '../errors.js';
import { FileLayerError, type FileLayer, type LayerKind } from './layer.js';
import { CONFIG_API_VERSION, CONFIG_KIND, configSpec } from './options.js';
import { decodeFields, describeValue, dropNulls, unknownFields, type FieldIssue } from './schema.js';
import { getIn, leaves } from './spec.js';

export { FileLayerError, type FileLayer, type LayerKind } from './layer.js';

type Path = readonly (string | number)[];

function lineOf(doc: Document, lc: LineCounter, path: Path): number | undefined {
  // The deepest node that exists names the line; a missing field points at its parent.
  for (let n = path.length; n >= 0; n--) {
    const node: unknown = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
    if (isNode(node) && node.range) return lc.linePos(node.range[0]).line;
    // A key that is a list or map (`? [a]`) is named by its text, which getIn cannot look up.
    const parent: unknown = n <= 1 ? doc.contents : doc.getIn(path.slice(0, n - 1), true);
    const pair = n > 0 && isMap(parent) ? parent.items.find((p) => isNode(p.key) && !isScalar(p.key) && flowText(p.key) === String(path[n - 1])) : undefined;
    if (pair && isNode(pair.key) && pair.key.range) return lc.linePos(pair.key.range[0]).line;
  }
  return undefined;
}

/** A list or map key as the conversion to JS names it (`[ a ]`), near enough to find its line. */
const flowText = (key: unknown): string => (isNode(key) ? stringify(key.toJSON(), { collectionStyle: 'flow' }).trim() : String(key));

const dotted = (path: Path): string => path.map(String).join('.');

/** Duplicate keys decode leniently in the kubelet (the last wins) with a warning; yaml would reject them. */
function duplicateKeys(doc: Document, lc: LineCounter): string[] {
  const out: string[] = [];
  const walk = (node: unknown, prefix: string): void => {
    if (!isMap(node)) return;
    const seen = new Set<string>();
    for (const item of node.items) {
      if (!isPair(item) || !isScalar(item.key)) continue;
      const key = String(item.key.value);
      const path = prefix ? `${prefix}.${key}` : key;
      if (seen.has(key)) {
        const line = item.key.range ? lc.linePos(item.key.range[0]).line : undefined;
        out.push(`duplicate field "${path}"${line ? ` at line ${line}` : ''}; the last value is used`);
      }
      seen.add(key);
      walk(item.value, path);
    }
  };
  walk(doc.contents, '');
  return out;
}

/**
 * YAML as sigs.k8s.io/yaml (go-yaml v2) reads it: YAML 1.1, so `yes`/`no`/
 * `on`/`off` are booleans, `0x1F` and `017` are integers and `<<` merge keys
 * work. Timestamps and base-60 numbers stay strings: go-yaml hands them to the
 * JSON conversion as text.
 */
const YAML_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  merge: true,
  uniqueKeys: false,
  prettyErrors: false,
  // The yaml package would print its own warnings through process.emitWarning
  // ("(node:PID) Warning: Keys with collection values will be stringified"):
  // what such a file holds is reported by the loader instead (a key that is a
  // list or map is an unknown field, named with its line).
  logLevel: 'error',
  customTags: (tags: Tags) => tags.filter((t) => !(typeof t === 'object' && (t.tag === 'tag:yaml.org,2002:timestamp' || (t as { format?: string }).format === 'TIME'))),
};

const ERRNO_MEANING: Readonly<Record<string, string>> = {
  ENOENT: 'does not exist',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'the path is too long',
};

/**
 * `ENOENT: the file does not exist`: the code (what an operator searches for)
 * and what it means for this path. `what` is the kind of thing the path must
 * name (`file`, `directory`).
 */
function errno(cause: unknown, what: 'file' | 'directory'): string {
  const code = (cause as NodeJS.ErrnoException).code;
  if (code === undefined) return String(cause);
  if (code === 'EISDIR') return `${code}: it is a directory, not a file${what === 'file' ? ' (drop-in directories are given with --config-dir)' : ''}`;
  if (code === 'ENOTDIR') return `${code}: ${what === 'directory' ? 'it is not a directory' : 'a part of the path is not a directory'}`;
  const meaning = ERRNO_MEANING[code];
  if (meaning === undefined) return code;
  return `${code}: ${meaning.startsWith('does') ? `the ${what} ${meaning}` : meaning}`;
}

export async function loadConfigFile(file: string, kind: LayerKind): Promise<FileLayer> {
  const what = kind === 'file' ? 'config file' : 'drop-in config file';
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw new ConfigFileError(`failed to read ${what} "${file}": ${errno(cause, 'file')}`, { file, cause });
  }
  if (text.trim() === '') throw new ConfigFileError(`${what} "${file}" is empty`, { file });

  const lc = new LineCounter();
  const docs = parseAllDocuments(text, { ...YAML_OPTIONS, lineCounter: lc });
  const all = Array.isArray(docs) ? docs : [];
  const errors = all.flatMap((d) => d.errors);
  if (errors.length > 0) {
    throw new ValidationError(
      errors.map((e) => {
        const { line, col } = lc.linePos(Math.min(e.pos[0], text.length));
        return new ConfigFileError(`${what} "${file}" line ${line}: syntax error at column ${col}: ${yamlReason(e.message)}`, { file, line, cause: e });
      }),
    );
  }
  // Empty documents (a trailing `---`, a comment-only document) do not count.
  const nonEmpty = all.filter((d) => d.contents !== null && !(isScalar(d.contents) && d.contents.value === null));
  if (nonEmpty.length > 1) {
    const line = nonEmpty[1]!.contents?.range ? lc.linePos(nonEmpty[1]!.contents.range[0]).line : undefined;
    throw new ConfigFileError(`${what} "${file}" holds ${nonEmpty.length} YAML documents${line ? ` (the second starts at line ${line})` : ''}; it must hold one AgentConfiguration`, { file, line });
  }
  const doc = nonEmpty[0] ?? all[0];
  if (doc === undefined) throw new ConfigFileError(`${what} "${file}" is empty`, { file });
  let raw: unknown;
  try {
    raw = doc.toJS();
  } catch (cause) {
    // yaml refuses documents whose aliases expand excessively (a "billion laughs" file)
    // or name no anchor; the latter has a place in the file to point at.
    const at = unresolvedAlias(doc, lc);
    throw new ConfigFileError(`${what} "${file}"${at ? ` line ${at.line}: syntax error at column ${at.col}` : ''}: ${(cause as Error).message}`, { file, line: at?.line, cause });
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigFileError(`${what} "${file}" line ${lineOf(doc, lc, []) ?? 1}: expected a mapping (an AgentConfiguration object)`, { file });
  }
  const obj = raw as Record<string, unknown>;
  const problems: AgentError[] = [];
  const problem = (path: Path, message: string): void => {
    const line = lineOf(doc, lc, path);
    const field = dotted(path);
    problems.push(new ConfigFileError(`${what} "${file}"${line ? ` line ${line}` : ''}: field ${field}: ${message}`, { file, line, field }));
  };
  for (const [key, want] of [['apiVersion', CONFIG_API_VERSION], ['kind', CONFIG_KIND]] as const) {
    const got = obj[key];
    if (got === undefined) problem([key], `missing; must be "${want}"`);
    else if (got !== want) problem([key], `must be "${want}", got ${JSON.stringify(got)}`);
  }
  const { apiVersion: _v, kind: _k, ...fields } = obj;
  const deletions = takeNullEntries(fields);
  const decoded = decodeFields(dropNulls(fields));
  for (const issue of decoded.issues) problem(issue.keys as Path, issueMessage(issue, fields));

  const warnings = unknownFields(fields).map(({ keys, suggestion }) => {
    const line = lineOf(doc, lc, keys);
    const hint = suggestion === undefined ? '' : `; did you mean "${suggestion}"?`;
    return `${what} "${file}"${line ? ` line ${line}` : ''}: unknown field "${dotted(keys)}" (ignored)${hint}`;
  });
  warnings.push(...duplicateKeys(doc, lc).map((w) => `${what} "${file}": ${w}`));

  // Decoded values in the option table's order, as the layer has always listed them.
  const values = new Map<string, unknown>();
  for (const leaf of leaves(configSpec)) if (decoded.values.has(leaf.path)) values.set(leaf.path, decoded.values.get(leaf.path));
  const layer: FileLayer = { kind, file, values, deletions, warnings };
  if (problems.length > 0) throw new FileLayerError(problems, layer);
  return layer;
}

/**
 * The message for one field issue: a value of the wrong type for an option
 * whose kind has a file hint says what is wanted, as the flag's parser does
 * (`expected a duration with a unit ..., got the number 10`).
 */
function issueMessage(issue: FieldIssue, fields: Record<string, unknown>): string {
  const kind = issue.opt?.kind;
  const hint = issue.keys.length === issue.depth ? kind?.fileHint : issue.keys.length === (issue.depth ?? 0) + 1 ? kind?.fileItemHint : undefined;
  // safeRecord reports a non-mapping as a custom issue in zod's wording.
  const wrongType = issue.code === 'invalid_type' || issue.code === 'invalid_union' || /^Invalid input: expected \w+, received \w+$/.test(issue.message);
  if (hint === undefined || !wrongType) return issue.message;
  return `expected ${hint}, got ${describeValue(getIn(fields, issue.keys.map(String)), issue.opt?.sensitive === true)}`;
}

/** Where the first alias without an anchor before it is, if there is one. */
function unresolvedAlias(doc: Document, lc: LineCounter): { line: number; col: number } | undefined {
  let found: { line: number; col: number } | undefined;
  visit(doc, {
    Alias(_key, node) {
      if (node.resolve(doc) !== undefined || !node.range) return undefined;
      found = lc.linePos(node.range[0]);
      return visit.BREAK;
    },
  });
  return found;
}

/** yaml's message without its position (the caller gives line and column) or its code excerpt. */
function yamlReason(message: string): string {
  return message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}

/** Removes `key: null` entries of map-valued fields from `fields` and returns them by field path. */
function takeNullEntries(fields: Record<string, unknown>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const leaf of leaves(configSpec)) {
    const v = getIn(fields, leaf.keys);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) continue;
    const map = v as Record<string, unknown>;
    const gone = Object.keys(map).filter((key) => map[key] === null);
    for (const key of gone) delete map[key];
    if (gone.length > 0) out.set(leaf.path, gone);
  }
  return out;
}

/**
 * Drop-in files under a directory, as the kubelet's filepath.WalkDir finds
 * them: the tree is walked recursively, each directory's entries in lexical
 * order of their names (a subdirectory is walked where it sorts), and every
 * non-directory entry whose name ends in `.conf` is a drop-in. Symbolic links
 * are not followed into directories; one naming a file counts as that file.
 * An entry that cannot be read (a dangling link, a file that vanished) is an
 * error naming it.
 */
export async function listDropIns(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string, top: boolean): Promise<void> => {
    let names: string[];
    try {
      names = await readdir(d);
    } catch (cause) {
      const what = top ? 'drop-in directory' : 'drop-in subdirectory';
      throw new ConfigFileError(`failed to read ${what} "${d}": ${errno(cause, 'directory')}`, { file: d, cause });
    }
    for (const name of names.sort()) {
      const path = join(d, name);
      let entry;
      try {
        entry = await lstat(path);
      } catch (cause) {
        throw new ConfigFileError(`failed to read drop-in directory entry "${path}": ${errno(cause, 'file')}`, { file: path, cause });
      }
      if (entry.isDirectory()) {
        await walk(path, false);
        continue;
      }
      if (!name.endsWith('.conf')) continue;
      let target = entry;
      if (entry.isSymbolicLink()) {
        try {
          target = await stat(path);
        } catch (cause) {
          throw new ConfigFileError(`failed to read drop-in config file "${path}": ${errno(cause, 'file')} (a dangling symbolic link?)`, { file: path, cause });
        }
      }
      if (!target.isFile()) throw new ConfigFileError(`drop-in config file "${path}" is not a regular file`, { file: path });
      out.push(path);
    }
  };
  await walk(dir, true);
  return out;
}
