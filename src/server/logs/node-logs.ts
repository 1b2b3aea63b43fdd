// GET /logs/<path>: files and directory listings under the node's log
// directory (the kubelet's /logs/ file server, Go's http.FileServer on
// /var/log). Nothing outside the directory is reachable: a `..` segment,
// plain or percent-encoded, is 400 (as Go's ServeFile); a path whose real
// location (symlinks resolved) is outside is 403; a missing one 404. A
// directory without its trailing slash is redirected (301) to it; a file with
// one is redirected to the name without. Listings are Go's: an HTML <pre>
// of links, sorted, directories ending in '/'. Sockets, FIFOs and devices are
// never opened (404). Called per request; reads only.
import { constants, createReadStream } from 'node:fs';
import { lstat, open, readdir, realpath } from 'node:fs/promises';
import { extname, join, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { AgentLogger } from '../../log/index.js';
import type { RouteContext } from '../types.js';
import { answer } from './container-logs.js';

export const NODE_LOGS_PREFIX = '/logs/';

export type NodeLogTarget =
  | { readonly kind: 'path'; readonly segments: readonly string[]; readonly trailingSlash: boolean }
  | { readonly kind: 'error'; readonly status: 400 | 404; readonly message: string };

/**
 * Pure: the request path → the segments under the log directory. Percent
 * escapes are decoded (an encoded '/' separates like a plain one, as Go
 * decodes the path before cleaning it); '.' and empty segments drop out.
 */
export function nodeLogTarget(pathname: string): NodeLogTarget {
  if (!pathname.startsWith(NODE_LOGS_PREFIX)) return { kind: 'error', status: 404, message: '404 page not found' };
  let rel: string;
  try {
    rel = decodeURIComponent(pathname.slice(NODE_LOGS_PREFIX.length));
  } catch {
    return { kind: 'error', status: 400, message: 'invalid URL path: bad percent-encoding' };
  }
  if (rel.includes('\0')) return { kind: 'error', status: 400, message: 'invalid URL path: NUL byte' };
  const parts = rel.split(/[/\\]/);
  if (parts.includes('..')) return { kind: 'error', status: 400, message: 'invalid URL path: ".." is not allowed' };
  return { kind: 'path', segments: parts.filter((p) => p !== '' && p !== '.'), trailingSlash: rel === '' || rel.endsWith('/') };
}

const isInside = (root: string, p: string): boolean => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#39;' })[c]!);

/** Pure: Go's directory listing for these entries. */
export function renderListing(entries: ReadonlyArray<{ name: string; dir: boolean }>): string {
  const rows = [...entries]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((e) => {
      const name = e.dir ? `${e.name}/` : e.name;
      // A name with a colon would read as a URL scheme: "./" keeps it relative.
      const href = encodeURIComponent(e.name).replace(/%2F/g, '/') + (e.dir ? '/' : '');
      return `<a href="${escapeHtml(e.name.includes(':') ? `./${href}` : href)}">${escapeHtml(name)}</a>\n`;
    });
  return `<!doctype html>\n<meta name="viewport" content="width=device-width">\n<pre>\n${rows.join('')}</pre>\n`;
}

const TYPES: Readonly<Record<string, string>> = {
  '.gz': 'application/gzip',
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json',
  '.xml': 'text/xml; charset=utf-8',
};

/** Pure: by extension, else Go's sniffing reduced to text or binary over the first bytes. */
export function contentType(name: string, head: Buffer): string {
  const byExt = TYPES[extname(name).toLowerCase()];
  if (byExt) return byExt;
  if (head.includes(0)) return 'application/octet-stream';
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, Math.max(0, head.length - 3)));
    return 'text/plain; charset=utf-8';
  } catch {
    return 'application/octet-stream';
  }
}

function redirect(ctx: RouteContext, location: string): void {
  const body = `<a href="${escapeHtml(location)}">Moved Permanently</a>.\n\n`;
  ctx.res.writeHead(301, { Location: location, 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  ctx.res.end(body);
}

export async function serveNodeLogs(d: { nodeLogDir: string; log: AgentLogger }, ctx: RouteContext): Promise<void> {
  const { res, url } = ctx;
  const t = nodeLogTarget(url.pathname);
  if (t.kind === 'error') return answer(res, t.status, t.message);
  let root: string;
  try {
    root = await realpath(d.nodeLogDir);
  } catch {
    return answer(res, 404, '404 page not found');
  }
  const target = join(root, ...t.segments);
  let real: string;
  try {
    real = await realpath(target);
  } catch {
    return answer(res, 404, '404 page not found');
  }
  if (!isInside(root, real)) {
    d.log.v(2)?.info('node log request outside the log directory refused', { path: url.pathname });
    return answer(res, 403, `forbidden: ${JSON.stringify(url.pathname)} resolves outside the node log directory`);
  }
  const st = await lstat(real).catch(() => undefined);
  if (!st) return answer(res, 404, '404 page not found');
  const last = t.segments[t.segments.length - 1];
  if (st.isDirectory()) {
    if (!t.trailingSlash) return redirect(ctx, `${url.pathname}/${url.search}`);
    const dirents = await readdir(real, { withFileTypes: true });
    const body = renderListing(dirents.map((e) => ({ name: e.name, dir: e.isDirectory() })));
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'Last-Modified': st.mtime.toUTCString() });
    res.end(body);
    return;
  }
  if (!st.isFile()) return answer(res, 404, '404 page not found');
  if (t.trailingSlash && last !== undefined) return redirect(ctx, `../${encodeURIComponent(last)}${url.search}`);
  // Non-blocking, not through a symlink swapped in since, and checked again on the descriptor: what was a file a moment ago must still be one.
  const fh = await open(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW).catch(() => undefined);
  if (!fh) return answer(res, 404, '404 page not found');
  try {
    const fst = await fh.stat();
    if (!fst.isFile()) return answer(res, 404, '404 page not found');
    const head = Buffer.alloc(Math.min(512, fst.size));
    await fh.read(head, 0, head.length, 0);
    res.writeHead(200, { 'Content-Type': contentType(real, head), 'Content-Length': fst.size, 'Last-Modified': fst.mtime.toUTCString(), 'Accept-Ranges': 'none' });
    if (ctx.req.method === 'HEAD' || fst.size === 0) {
      res.end();
      return;
    }
    // The length was promised: send exactly that many bytes even if the file grows meanwhile.
    await pipeline(createReadStream('', { fd: fh, start: 0, end: fst.size - 1, autoClose: false }), res, { signal: ctx.signal }).catch((err: unknown) => {
      if (!ctx.signal.aborted) d.log.v(2)?.info('node log file transfer ended early', { path: url.pathname, error: String(err) });
      res.destroy();
    });
  } finally {
    await fh.close().catch(() => undefined);
  }
}
