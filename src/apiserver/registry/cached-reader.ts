// Reads of one store served from its watch-fed cache (lister.ts) where the
// cache can answer, else from storage: the shape the authorizers' lookups
// take (authz/from-stores.ts ObjectReader: get throws a NotFound ApiError,
// list reads a namespace or, with '', every namespace), so RBAC roles and
// bindings are read from memory per request as kube-apiserver's RBAC
// authorizer reads its informers. Same freshness rule as the lister: a
// write this process made through the store is never read stale; others
// show once their watch event arrived. A cached miss is a 404 without a
// storage read, unlike the admission lookups (a policy object created by
// another server appears with its watch event, as upstream).
import { apiErrors } from '../../api/errors.js';
import { groupResource } from './context.js';
import { listPrefix } from './object.js';
import type { GenericStore } from './store.js';
import type { ApiObject } from './types.js';

export interface CachedReader {
  get(namespace: string, name: string): Promise<ApiObject>;
  list(namespace: string, req: { readAt: { kind: 'MostRecent' } }): Promise<{ items: ApiObject[] }>;
}

export function cachedReader(store: GenericStore): CachedReader {
  const info = store.strategy.info;
  return {
    async get(namespace, name) {
      const hit = store.cached().lookup(store.key(namespace, name));
      if (!hit.fresh) return store.get(namespace, name);
      if (hit.object === undefined) throw apiErrors.notFound(groupResource(store.ctx), name);
      return hit.object;
    },
    async list(namespace, req) {
      const hit = store.cached().list(listPrefix(info, namespace));
      return hit.fresh ? { items: hit.items } : store.list(namespace, req);
    },
  };
}
