// Continue tokens of paged lists (§4.6): opaque to clients, upstream's form
// (base64url of `{"v":"meta.platform.io/v1","rv":N,"start":"<key after the
// prefix>"}`) plus the time the token was issued, so a token can expire after
// a TTL even when the store keeps its history longer. rv -1 marks the
// inconsistent continuation a 410 hands out. Pure.
import { apiErrors, type ApiError } from '../../api/errors.js';

const VERSION = 'meta.platform.io/v1';

export interface ContinueToken {
  /** The first page's revision; -1: continue at the latest (inconsistent). */
  rv: number;
  /** Where the next page starts, relative to the list's prefix. */
  start: string;
  /** When the first page was served (ms). */
  issued: number;
}

export function encodeContinue(t: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: VERSION, rv: t.rv, start: t.start, t: t.issued })).toString('base64url');
}

const invalid = (why: string): ApiError => apiErrors.badRequest(`invalid continue token: continue key is not valid${why === '' ? '' : `: ${why}`}`);

/** The token's content, or a 400 with upstream's wording. */
export function decodeContinue(token: string): ContinueToken {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(token)) throw invalid('illegal base64 data');
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch (e) {
    throw invalid(e instanceof Error ? e.message : String(e));
  }
  if (raw === null || typeof raw !== 'object') throw invalid('');
  const { v, rv, start, t } = raw as Record<string, unknown>;
  if (v !== VERSION) throw invalid(`server does not recognize this encoded version ${JSON.stringify(v)}`);
  if (typeof rv !== 'number' || !Number.isInteger(rv) || rv === 0 || rv < -1) throw invalid('incorrect encoded start resourceVersion (version meta.platform.io/v1)');
  if (typeof start !== 'string' || start === '') throw invalid('encoded start key empty (version meta.platform.io/v1)');
  // As upstream's path.Clean check: a start that is not a clean relative path could climb out of the list's prefix.
  const segments = (start.startsWith('/') ? start.slice(1) : start).split('/');
  if (segments.some((seg) => seg === '.' || seg === '..' || seg === '')) throw invalid(start);
  return { rv, start, issued: typeof t === 'number' ? t : 0 };
}

export const EXPIRED_CONTINUE_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, ' +
  'or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - ' +
  'objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** 410 for an expired token, carrying a fresh inconsistent token for the rest of the list (§4.6 rule 4, wire notes (h)). */
export function expiredContinue(t: ContinueToken, now: number): ApiError {
  return apiErrors.expired(EXPIRED_CONTINUE_MESSAGE, { continue: encodeContinue({ rv: -1, start: t.start, issued: now }) });
}
