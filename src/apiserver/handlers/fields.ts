// Managed fields on every write (wire notes (h)): who set what, recorded by
// the apply/ module. The handlers build one FieldTracking per request — the
// manager (fieldManager, else the user agent's product name), the endpoint's
// version, the time, the subresource — and the list semantics of the kind
// from the strategic-merge-patch table (a merge key → a map list keyed by it,
// a merge strategy on primitives → a set, anything else atomic).
import { schemaForKind, type PatchSchema } from '../../api/patch/index.js';
import { managerFor } from '../apply/options.js';
import type { ListType, ListTypes } from '../apply/walk.js';
import { apiVersionString, headerValue } from './body.js';
import type { RequestContext } from './context.js';

export interface FieldTracking {
  manager: string;
  apiVersion: string;
  now: string;
  subresource: string;
  listTypes: ListTypes;
}

export function listTypesFor(apiVersion: string, kind: string): ListTypes {
  const root: PatchSchema = schemaForKind(apiVersion, kind);
  return (path): ListType => {
    let schema = root;
    let strategy = '';
    let mergeKey = '';
    for (const name of path) {
      const f = schema.field(name);
      ({ strategy, mergeKey, schema } = f);
    }
    if (mergeKey !== '') return { type: 'map', keys: [mergeKey] };
    if (strategy === 'merge') return { type: 'set' };
    return { type: 'atomic' };
  };
}

/** RFC 3339 in whole seconds, as managedFields times are written. */
export const nowSeconds = (ms = Date.now()): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

export function tracking(ctx: RequestContext, fieldManager: string): FieldTracking {
  const apiVersion = apiVersionString(ctx.gvk);
  return {
    manager: managerFor(fieldManager, headerValue(ctx.req.headers['user-agent'])),
    apiVersion,
    now: nowSeconds(),
    subresource: ctx.info.subresource,
    listTypes: listTypesFor(apiVersion, ctx.gvk.kind),
  };
}
