// YAML request bodies (application/yaml, apply-patch+yaml): parsed with the
// `yaml` package, with duplicate keys found on its syntax tree (so they are
// reported like JSON's, by path, instead of failing the parse) and the
// nesting depth bounded as for JSON. Pure and synchronous.

import { type Node, isAlias, isMap, isScalar, isSeq, parseAllDocuments } from 'yaml';
import { CodecError, joinPath } from './errors.js';
import { MAX_JSON_DEPTH, type StrictJson } from './strict-json.js';

function keyString(k: unknown): string {
  if (isScalar(k)) return String(k.value);
  return String(k);
}

function scan(node: unknown, path: string, depth: number, duplicates: string[], maxDepth: number): void {
  if (depth > maxDepth) throw new CodecError('EDEPTH', `YAML nesting exceeds the maximum depth of ${maxDepth} at ${JSON.stringify(path)}`, { field: path, detail: `exceeded max depth of ${maxDepth}` });
  if (isMap(node)) {
    const seen = new Set<string>();
    for (const pair of node.items) {
      const k = keyString(pair.key);
      const p = joinPath(path, k);
      if (seen.has(k)) duplicates.push(p);
      seen.add(k);
      scan(pair.value, p, depth + 1, duplicates, maxDepth);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => scan(item, joinPath(path, i), depth + 1, duplicates, maxDepth));
  } else if (isAlias(node)) {
    // Aliases repeat an anchored node already scanned where it was defined.
  }
}

/** Parses one YAML document; throws CodecError ESYNTAX (offset in characters of the text) or EDEPTH. */
export function parseYamlStrict(input: Uint8Array | string, maxDepth = MAX_JSON_DEPTH): StrictJson {
  const text = typeof input === 'string' ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength).toString('utf8');
  let docs;
  try {
    docs = parseAllDocuments(text, { uniqueKeys: false, prettyErrors: false, strict: true });
  } catch (e) {
    if (e instanceof RangeError) throw new CodecError('EDEPTH', `YAML nesting exceeds the maximum depth of ${maxDepth}`, { detail: `exceeded max depth of ${maxDepth}` });
    throw e;
  }
  const list = Array.isArray(docs) ? docs : [];
  if (list.length > 1) throw new CodecError('ESYNTAX', 'YAML body holds more than one document', { offset: list[1]?.range[0] ?? 0 });
  const doc = list[0];
  if (doc === undefined) return { value: null, duplicates: [] };
  const err = doc.errors[0];
  if (err !== undefined) {
    const offset = err.pos[0];
    throw new CodecError('ESYNTAX', `invalid YAML at offset ${offset}: ${err.message.split('\n')[0] ?? ''}`, { offset, detail: err.message });
  }
  const duplicates: string[] = [];
  scan(doc.contents as Node | null, '', 0, duplicates, maxDepth);
  try {
    return { value: doc.toJS({ maxAliasCount: 100 }) as unknown, duplicates };
  } catch (e) {
    if (e instanceof RangeError) throw new CodecError('EDEPTH', `YAML nesting exceeds the maximum depth of ${maxDepth}`, { detail: `exceeded max depth of ${maxDepth}` });
    throw new CodecError('ESYNTAX', `invalid YAML: ${(e as Error).message}`, { cause: e });
  }
}
