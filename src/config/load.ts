// Reads one AgentConfiguration file (YAML or JSON) into a layer of decoded
// field values. Every problem names the file, the field path and the line.
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { LineCounter, isMap, isNode, isPair, isScalar, parseDocument, type Document } from 'yaml';
import { ConfigFileError, ValidationError, type AgentError } from '../errors.js';
import { CONFIG_API_VERSION, CONFIG_KIND, configSpec } from './options.js';
import { dropNulls, fileSchema, unknownFields } from './schema.js';
import { getIn, leaves } from './spec.js';

export type LayerKind = 'file' | 'dropin';

export interface FileLayer {
  readonly kind: LayerKind;
  readonly file: string;
  /** Decoded values by field path, only for fields the file sets. */
  readonly values: ReadonlyMap<string, unknown>;
  /** Map entries a drop-in deletes with `key: null` (JSON merge patch), by field path. */
  readonly deletions: ReadonlyMap<string, readonly string[]>;
  readonly warnings: readonly string[];
}

type Path = readonly (string | number)[];

function lineOf(doc: Document, lc: LineCounter, path: Path): number | undefined {
  // The deepest node that exists names the line; a missing field points at its parent.
  for (let n = path.length; n >= 0; n--) {
    const node: unknown = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
    if (isNode(node) && node.range) return lc.linePos(node.range[0]).line;
  }
  return undefined;
}

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

export async function loadConfigFile(file: string, kind: LayerKind): Promise<FileLayer> {
  const what = kind === 'file' ? 'config file' : 'drop-in config file';
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw new ConfigFileError(`failed to read ${what} "${file}": ${(cause as NodeJS.ErrnoException).code ?? String(cause)}`, { file, cause });
  }
  if (text.trim() === '') throw new ConfigFileError(`${what} "${file}" is empty`, { file });

  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, uniqueKeys: false, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new ValidationError(
      doc.errors.map((e) => {
        const line = lc.linePos(Math.min(e.pos[0], text.length)).line;
        return new ConfigFileError(`${what} "${file}"${line ? ` line ${line}` : ''}: syntax error: ${e.message.split('\n')[0]}`, { file, line, cause: e });
      }),
    );
  }
  const raw: unknown = doc.toJS();
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
  const decoded = dropNulls(fields);
  const parsed = fileSchema(decoded).safeParse(decoded);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problem(issue.path as Path, issue.message);
  }
  if (problems.length > 0 || !parsed.success) throw new ValidationError(problems);

  const warnings = unknownFields(fields).map(({ keys }) => {
    const line = lineOf(doc, lc, keys);
    return `${what} "${file}"${line ? ` line ${line}` : ''}: unknown field "${dotted(keys)}" (ignored)`;
  });
  warnings.push(...duplicateKeys(doc, lc).map((w) => `${what} "${file}": ${w}`));

  const values = new Map<string, unknown>();
  for (const leaf of leaves(configSpec)) {
    const v = getIn(parsed.data, leaf.keys);
    if (v !== undefined) values.set(leaf.path, v);
  }
  return { kind, file, values, deletions, warnings };
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

/** Drop-in files of a directory: regular `*.conf` files, in lexical order of their names. */
export async function listDropIns(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (cause) {
    throw new ConfigFileError(`failed to read drop-in directory "${dir}": ${(cause as NodeJS.ErrnoException).code ?? String(cause)}`, { file: dir, cause });
  }
  const out: string[] = [];
  for (const name of names.filter((n) => n.endsWith('.conf')).sort()) {
    const path = join(dir, name);
    if ((await stat(path)).isFile()) out.push(path);
  }
  return out;
}
