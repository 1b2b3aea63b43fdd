// The reads of a ResourceClient (§4.13, §4.6, §4.8): get, list, every page,
// watch and Table requests. Each call is one request (listAll: one per page),
// idempotent for the Transport, cancellable through its signal.
import type { ApiObject } from '../../api/codec/index.js';
import type { ListOptions, ListPage, WatchOptions, WatchStream } from '../types.js';
import { DEFAULT_PAGE_SIZE, listAllPages, toListPage } from './list.js';
import { listQuery } from './query.js';
import { ACCEPT_TABLE, checkKind, decodeBody } from './representation.js';
import { call, collectionRef, objectRef, type Scope } from './scope.js';
import { openWatch } from './watch.js';

/** A Table (the server's columns and rows), or the plain object or list when the type has no Table form (§4.8's fallback). */
export type TableResult = { readonly kind: 'Table'; readonly table: ApiObject } | { readonly kind: 'Object'; readonly object: ApiObject };

/** Get: resourceVersion unset = Most Recent, `0` = Any, other = Not older than. */
export async function get(s: Scope, name: string, opts: { resourceVersion?: string; signal?: AbortSignal } = {}): Promise<ApiObject> {
  const ref = objectRef(s, 'GET', name);
  const query = new URLSearchParams();
  if (opts.resourceVersion !== undefined && opts.resourceVersion !== '') query.set('resourceVersion', opts.resourceVersion);
  return call(s, { ref, query, idempotent: true, signal: opts.signal, kinds: [s.type.kind] });
}

async function listPage(s: Scope, opts: ListOptions): Promise<ListPage> {
  const ref = collectionRef(s, 'GET');
  const query = listQuery(ref, opts);
  const omit = opts.omitManagedFields === true;
  const body = await call(s, { ref, query, idempotent: true, signal: opts.signal, kinds: [`${s.type.kind}List`], ...(omit ? { decode: { omitManagedFields: true } } : {}) });
  return toListPage(ref, s.type, body, omit);
}

/**
 * One page. §4.13: an `Exact` list without `limit` whose collection version
 * is not the one asked for is read again with `limit` (which the server
 * must serve exactly), every page of it, as one page without a token.
 */
export async function list(s: Scope, opts: ListOptions): Promise<ListPage> {
  const page = await listPage(s, opts);
  if (opts.resourceVersionMatch !== 'Exact' || (opts.limit ?? 0) > 0 || page.resourceVersion === opts.resourceVersion) return page;
  const { continue: _c, ...rest } = opts;
  const all = await listAllPages(collectionRef(s, 'GET'), (o) => listPage(s, o), { ...rest, limit: DEFAULT_PAGE_SIZE });
  return { items: all.items, resourceVersion: all.resourceVersion, continue: '', remainingItemCount: undefined };
}

export async function listAll(s: Scope, opts: Omit<ListOptions, 'continue'> = {}): Promise<{ items: ApiObject[]; resourceVersion: string }> {
  return listAllPages(collectionRef(s, 'GET'), (o) => listPage(s, o), opts);
}

export async function watch(s: Scope, opts: WatchOptions): Promise<WatchStream> {
  return openWatch(s.ctx, s.type, s.namespace, opts);
}

/**
 * A Table of one object (`name`) or of the collection (`name` '' with list
 * options), asked for as `as=Table;v=v1;g=meta.platform.io` with plain JSON
 * after it, so a type without a Table form answers the object itself.
 */
export async function getTable(s: Scope, name: string, opts: ListOptions = {}): Promise<TableResult> {
  const ref = name === '' ? collectionRef(s, 'GET') : objectRef(s, 'GET', name);
  const query = name === '' ? listQuery(ref, opts) : new URLSearchParams();
  const res = await s.ctx.transport.request({
    method: 'GET',
    path: ref.path,
    ...(query.size === 0 ? {} : { query }),
    headers: { accept: ACCEPT_TABLE },
    idempotent: true,
    ...(opts.signal === undefined ? {} : { signal: opts.signal }),
  });
  const obj = decodeBody(s.ctx.codec, ref, res);
  if (obj['kind'] === 'Table') return { kind: 'Table', table: obj };
  checkKind(ref, 'kind', obj, [name === '' ? `${s.type.kind}List` : s.type.kind]);
  return { kind: 'Object', object: obj };
}
