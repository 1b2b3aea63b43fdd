// Lists (§4.6, §4.13): one page, and every page with client-go's pager
// fallback. A list body must be `<Kind>List` with metadata.resourceVersion
// and items of the type's kind (each gets kind and apiVersion, as watch
// objects carry them, so a list and a watch deliver the same shape).
import type { ApiObject } from '../../api/codec/index.js';
import { isGone } from '../../api/errors.js';
import { ClientProtocolError, type RequestRef } from '../errors.js';
import { stripManagedFields } from '../meta.js';
import type { ListOptions, ListPage, ResourceType } from '../types.js';
import { checkKind, isObject } from './representation.js';
import { apiVersionOf } from './resources.js';

/** client-go's pager default. */
export const DEFAULT_PAGE_SIZE = 500;
/** A bound on one listAll: a server handing out continue tokens forever is a broken server. */
export const MAX_PAGES = 100_000;

/** A decoded list body → ListPage; `omitManagedFields` strips what a JSON body still has. Pure. */
export function toListPage(ref: RequestRef, t: ResourceType, body: ApiObject, omitManagedFields = false): ListPage {
  checkKind(ref, 'kind', body, [`${t.kind}List`]);
  const meta = body['metadata'];
  const rv = isObject(meta) ? meta['resourceVersion'] : undefined;
  if (typeof rv !== 'string' || rv === '') throw new ClientProtocolError(ref, 'metadata.resourceVersion', 'a list without a resourceVersion');
  const raw = body['items'] ?? [];
  if (!Array.isArray(raw)) throw new ClientProtocolError(ref, 'items', `expected an array, got ${typeof raw}`);
  const apiVersion = apiVersionOf(t);
  const items = raw.map((it: unknown, i): ApiObject => {
    if (!isObject(it)) throw new ClientProtocolError(ref, `items[${i}]`, 'expected an object');
    checkKind(ref, `items[${i}].kind`, it, [t.kind]);
    if (omitManagedFields) stripManagedFields(it);
    return it['kind'] === undefined ? { kind: t.kind, apiVersion, ...it } : it;
  });
  const cont = isObject(meta) ? meta['continue'] : undefined;
  const remaining = isObject(meta) ? meta['remainingItemCount'] : undefined;
  return { items, resourceVersion: rv, continue: typeof cont === 'string' ? cont : '', remainingItemCount: typeof remaining === 'number' ? remaining : undefined };
}

/**
 * Every page of a list in `limit`-sized requests; continuation pages carry
 * only the token. A continuation page that fails with 410 (its token
 * expired) is answered by ONE full list (limit unset, the original version
 * and match), as client-go's pager does; a 410 on the first page is the
 * caller's (an informer relists). Resolves with the items and the version
 * of the snapshot.
 */
export async function listAllPages(ref: RequestRef, list: (o: ListOptions) => Promise<ListPage>, opts: Omit<ListOptions, 'continue'>): Promise<{ items: ApiObject[]; resourceVersion: string }> {
  const limit = opts.limit ?? DEFAULT_PAGE_SIZE;
  const first = await list({ ...opts, limit });
  const items = [...first.items];
  let token = first.continue;
  for (let pages = 1; token !== ''; pages++) {
    if (pages >= MAX_PAGES) throw new ClientProtocolError(ref, 'metadata.continue', `still continuing after ${MAX_PAGES} pages`);
    let page: ListPage;
    try {
      page = await list({ ...pick(opts), limit, continue: token });
    } catch (err) {
      if (!isGone(err)) throw err;
      const { limit: _limit, ...full } = opts;
      const all = await list(full);
      return { items: all.items, resourceVersion: all.resourceVersion };
    }
    for (const it of page.items) items.push(it);
    token = page.continue;
  }
  return { items, resourceVersion: first.resourceVersion };
}

/** What a continuation page keeps: selectors and the signal, never the version (the token carries it). */
function pick(o: Omit<ListOptions, 'continue'>): ListOptions {
  return { ...(o.labelSelector === undefined ? {} : { labelSelector: o.labelSelector }), ...(o.fieldSelector === undefined ? {} : { fieldSelector: o.fieldSelector }), ...(o.signal === undefined ? {} : { signal: o.signal }) };
}
