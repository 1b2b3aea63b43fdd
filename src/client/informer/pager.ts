// client-go's pager over a ListerWatcher: the first page with the round's
// version and limit, then continuation pages with only `continue` (and the
// selectors: a version or match beside a token is a 400/422), items
// collected in order. A 410 on a continuation page (the token expired)
// becomes ONE full unpaged list at the original version; a 410 on the first
// page goes back to the reflector, which relists consistently. Called by the
// reflector once per list round; aborts with `signal`; not idempotent only
// in that it costs requests.
import { ClientProtocolError } from '../errors.js';
import type { ApiObject, ListOptions, ListerWatcher } from '../types.js';
import { isExpired } from './policy.js';
import { requestOf } from './validate.js';

export interface PagedList {
  readonly items: ApiObject[];
  readonly resourceVersion: string;
  /** The server split the answer into pages (the reflector keeps paging afterwards). */
  readonly paginated: boolean;
}

/** Bounds a server that hands out continue tokens forever. */
const MAX_PAGES = 1_000_000;

export async function listPaged(lw: ListerWatcher, first: ListOptions, signal: AbortSignal): Promise<PagedList> {
  const page = await lw.list({ ...first, signal });
  checkVersion(lw, page.resourceVersion);
  if (page.continue === '' || first.limit === undefined) return { items: page.items, resourceVersion: page.resourceVersion, paginated: false };
  const items = page.items;
  const selectors: ListOptions = {
    ...(first.labelSelector === undefined ? {} : { labelSelector: first.labelSelector }),
    ...(first.fieldSelector === undefined ? {} : { fieldSelector: first.fieldSelector }),
    ...(first.omitManagedFields === undefined ? {} : { omitManagedFields: first.omitManagedFields }),
  };
  let token = page.continue;
  let rv = page.resourceVersion;
  for (let pages = 1; token !== ''; pages++) {
    if (pages >= MAX_PAGES) throw new ClientProtocolError(requestOf(lw, 'list'), 'metadata.continue', `more than ${MAX_PAGES} pages`);
    let next;
    try {
      next = await lw.list({ ...selectors, limit: first.limit, continue: token, signal });
    } catch (e) {
      if (!isExpired(e) || signal.aborted) throw e;
      const all = await lw.list({ ...first, limit: undefined, signal });
      checkVersion(lw, all.resourceVersion);
      return { items: all.items, resourceVersion: all.resourceVersion, paginated: true };
    }
    checkVersion(lw, next.resourceVersion);
    if (next.continue !== '' && next.continue === token) throw new ClientProtocolError(requestOf(lw, 'list'), 'metadata.continue', 'the server returned the token it was given');
    for (const it of next.items) items.push(it);
    token = next.continue;
    rv = next.resourceVersion;
  }
  return { items, resourceVersion: rv, paginated: true };
}

function checkVersion(lw: ListerWatcher, rv: string): void {
  if (rv === '') throw new ClientProtocolError(requestOf(lw, 'list'), 'metadata.resourceVersion', 'list without a resourceVersion');
}
