// A manifest file read (to at most a size limit, never blocking: file-read.ts)
// and parsed in one step: how the parser's worker takes a large file, so its
// bytes never reach the agent's event loop (parser.ts parseFile()).
import { readBounded } from './file-read.js';
import { parseManifest, type ManifestContext, type ManifestResult } from './manifest.js';

/** A file's pods or why not, with what identified its content when read; or why it could not be read. */
export type FileParse = { readonly stamp: string; readonly mtimeMs: number; readonly result: ManifestResult } | { readonly problem: string };

export function readAndParse(path: string, maxBytes: number, ctx: ManifestContext): FileParse {
  const read = readBounded(path, maxBytes);
  if ('problem' in read) return read;
  return { stamp: read.stamp, mtimeMs: read.mtimeMs, result: parseManifest('file', read.bytes.toString('utf8'), ctx) };
}
