// Pure request-target checks and route matching for the node servers: no I/O,
// table-tested. The pipeline calls these before authentication, so a bad path
// is answered the same way whoever asks.
import type { Route } from '../types.js';

export type TargetResult = { readonly ok: true; readonly url: URL } | { readonly ok: false; readonly message: string };

const BASE = 'http://node.invalid';
const BAD_ESCAPE = /%(?![0-9a-fA-F]{2})/;

/**
 * Parses req.url (origin-form only). Refused (400): a bad or double percent
 * escape, an escaped `/`, `\`, NUL or control character inside a segment, dot
 * segments, backslashes, a query whose escapes are not valid UTF-8. What is
 * accepted decodes the same way in every route, so no route sees a path that
 * matching or authorization read differently.
 */
export function parseTarget(raw: string | undefined): TargetResult {
  if (raw === undefined || !raw.startsWith('/')) return bad(`request target must be an absolute path, got ${JSON.stringify(raw ?? '')}`);
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  const query = q < 0 ? '' : raw.slice(q + 1);
  if (path.includes('\\')) return bad('path must not contain a backslash');
  if (BAD_ESCAPE.test(path)) return bad('path has a malformed percent escape');
  for (const seg of path.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(seg);
    } catch {
      return bad('path has a percent escape that is not valid UTF-8');
    }
    if (decoded === '.' || decoded === '..') return bad('path must not contain "." or ".." segments');
    if (/[/\\\u0000-\u001f\u007f]/.test(decoded)) return bad(`path segment ${JSON.stringify(seg)} encodes a separator or control character`);
    if (/%[0-9a-fA-F]{2}/.test(decoded)) return bad(`path segment ${JSON.stringify(seg)} is encoded twice`);
  }
  if (BAD_ESCAPE.test(query)) return bad('query has a malformed percent escape');
  try {
    decodeURIComponent(query.replace(/\+/g, ' '));
  } catch {
    return bad('query has a percent escape that is not valid UTF-8');
  }
  try {
    // Concatenated, not resolved against a base: `//x` must stay a path, not become a host.
    return { ok: true, url: new URL(BASE + raw) };
  } catch (err) {
    return bad(`request target does not parse: ${(err as Error).message}`);
  }
}

const bad = (message: string): TargetResult => ({ ok: false, message });

/** The routes a server shows at all: others answer 404 as if they did not exist. */
export function visibleRoutes(routes: readonly Route[], server: 'main' | 'readOnly', debugging: boolean): Route[] {
  return routes.filter((r) => (server === 'main' || r.readOnly) && (debugging || !r.debugging));
}

export type MatchResult =
  | { readonly kind: 'route'; readonly route: Route }
  | { readonly kind: 'notFound' }
  | { readonly kind: 'methodNotAllowed'; readonly path: string; readonly allow: readonly string[] };

/** Whether `route.path` covers `pathname` on whole segments: `/stats/` covers `/stats` and all below it; `/pods` only itself. */
export function covers(routePath: string, pathname: string): boolean {
  if (routePath.endsWith('/')) return pathname === routePath.slice(0, -1) || pathname.startsWith(routePath);
  return pathname === routePath;
}

/** The longest route path covering `pathname`; among routes of that path, the one answering `method` (HEAD wherever GET). */
export function matchRoute(routes: readonly Route[], pathname: string, method: string): MatchResult {
  let best: Route[] = [];
  for (const r of routes) {
    if (!covers(r.path, pathname)) continue;
    if (best.length === 0 || r.path.length > best[0]!.path.length) best = [r];
    else if (r.path.length === best[0]!.path.length) best.push(r);
  }
  if (best.length === 0) return { kind: 'notFound' };
  const wanted = method === 'HEAD' ? ['HEAD', 'GET'] : [method];
  const route = best.find((r) => r.methods.some((m) => wanted.includes(m)));
  if (route !== undefined) return { kind: 'route', route };
  const allow = new Set(best.flatMap((r) => r.methods));
  if (allow.has('GET')) allow.add('HEAD');
  return { kind: 'methodNotAllowed', path: best[0]!.path, allow: [...allow].sort() };
}

export type BodyCheck = { readonly ok: true } | { readonly ok: false; readonly status: 411 | 413; readonly message: string };

/** Refuses bodies the server will not read: longer than the limit, or of unknown length (chunked). */
export function checkBody(headers: { 'content-length'?: string; 'transfer-encoding'?: string }, maxBodyBytes: number): BodyCheck {
  const te = headers['transfer-encoding'];
  const cl = headers['content-length'];
  if (te !== undefined && te.toLowerCase() !== 'identity' && cl === undefined) {
    return { ok: false, status: 411, message: 'a request body needs a Content-Length' };
  }
  if (cl !== undefined && Number(cl) > maxBodyBytes) {
    return { ok: false, status: 413, message: `request body of ${cl} bytes exceeds the limit of ${maxBodyBytes}` };
  }
  return { ok: true };
}

/** The observer's upgrade label: 'websocket', 'spdy', or '' for any other protocol. */
export function upgradeKind(header: string | undefined): string {
  const h = (header ?? '').toLowerCase();
  if (h.includes('websocket')) return 'websocket';
  if (h.includes('spdy')) return 'spdy';
  return '';
}

/** Whether a client certificate was presented: Node's getPeerCertificate() gives `{}` when none was. */
export function certificatePresented(cert: object | null | undefined): boolean {
  return cert !== null && cert !== undefined && Object.keys(cert).length > 0;
}
