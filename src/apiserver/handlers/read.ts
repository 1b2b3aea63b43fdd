// GET of one object (get) and of a collection (list), spec §4.2/§4.3 with the
// §4.13 read semantics, selectors, paging (§4.6) and Table output (§4.8).
import type { LabelSelector } from '../../api/selectors.js';
import { parseListQuery, type ListQuery } from '../../api/list-query.js';
import { classifyGet, classifyList } from '../../api/resource-version.js';
import type { FieldSelector } from '../../api/field-selector.js';
import { MEDIA_JSON, MEDIA_PROTOBUF } from '../../api/media.js';
import { apiVersionOf } from '../registry/object.js';
import { listPage, type ListPage } from '../registry/store-list.js';
import type { ApiObject, ObjectList, ReadAt, Selection } from '../registry/types.js';
import type { RequestContext } from './context.js';
import { jsonCacheOf, jsonListBytes } from './list-json.js';
import { send, sendObject } from './respond.js';

/** The registry's Selection for parsed selectors (undefined when both select everything). */
export function selectionOf(labels: LabelSelector, fields: FieldSelector): Selection | undefined {
  if (labels.empty() && fields.empty()) return undefined;
  const sel: Selection = {};
  if (!labels.empty()) sel.labels = (l) => labels.matches(l);
  if (!fields.empty()) {
    sel.fields = (f) => fields.matches((name) => f[name]);
    sel.fieldNames = fields.fields();
    for (const field of sel.fieldNames) {
      const value = fields.exactMatch(field);
      if (value !== undefined) {
        sel.hint = { field, value };
        break;
      }
    }
  }
  return sel;
}

export function listQuery(ctx: RequestContext): ListQuery {
  return parseListQuery(ctx.req.url.searchParams, { listChunking: ctx.deps.gates.chunking });
}

export async function handleGet(ctx: RequestContext): Promise<void> {
  const { entry, info } = ctx;
  const readAt: ReadAt = classifyGet(ctx.req.url.searchParams.get('resourceVersion') ?? '');
  const obj = await entry.store.get(info.namespace, info.name, readAt);
  sendRead(ctx, [obj], undefined, obj);
}

export async function handleList(ctx: RequestContext): Promise<void> {
  const q = listQuery(ctx);
  const readAt: ReadAt = classifyList(q);
  const selection = selectionOf(q.labelSelector, q.fieldSelector);
  const store = ctx.entry.store;
  const page = await listPage(store.ctx, ctx.info.namespace, { readAt, ...(q.limit > 0 ? { limit: q.limit } : {}), ...(selection === undefined ? {} : { selection }) });
  const choice = ctx.answer.choice;
  if (choice?.table === undefined) {
    // The common answers are assembled from what is stored: protobuf from the envelopes, JSON from each item's kept text.
    if (choice?.mediaType === MEDIA_PROTOBUF) {
      const body = ctx.deps.wire.encodeStoredList?.({ ...ctx.gvk, kind: `${ctx.gvk.kind}List` }, page.metadata, page.values);
      if (body !== undefined) return send(ctx.answer, 200, MEDIA_PROTOBUF, body);
    } else if (choice === undefined || (choice.mediaType === MEDIA_JSON && !choice.pretty)) {
      return send(ctx.answer, 200, 'application/json', jsonPage(ctx, page));
    }
  }
  const items = page.values.map((kv) => listItem(page.decode(kv)));
  const info = store.strategy.info;
  sendRead(ctx, items, page.metadata, { apiVersion: apiVersionOf(info), kind: `${info.kind}List`, metadata: page.metadata, items });
}

/** Items of a typed list carry no kind/apiVersion of their own (the list's say it), as upstream's JSON. */
function listItem({ kind: _k, apiVersion: _v, ...rest }: ApiObject): ApiObject {
  return rest as ApiObject;
}

function jsonPage(ctx: RequestContext, page: ListPage): Buffer {
  const { store } = ctx.entry;
  const cache = jsonCacheOf(store.ctx);
  const items = page.values.map((kv) => cache.json(kv, () => JSON.stringify(listItem(page.decode(kv)))));
  const info = store.strategy.info;
  return jsonListBytes({ apiVersion: apiVersionOf(info), kind: `${info.kind}List`, metadata: page.metadata }, items);
}

/** A get or list answer: the Table conversion when negotiated, else the object or list itself. */
function sendRead(ctx: RequestContext, items: readonly ApiObject[], listMeta: ObjectList['metadata'] | undefined, whole: ApiObject | ObjectList): void {
  const choice = ctx.answer.choice;
  if (choice?.table !== undefined) {
    sendObject(ctx.answer, 200, ctx.deps.registry.toTable(ctx.entry, items, listMeta, choice.table.includeObject), { group: 'meta.platform.io', version: choice.table.version, kind: 'Table' });
    return;
  }
  sendObject(ctx.answer, 200, whole, listMeta === undefined ? ctx.gvk : { ...ctx.gvk, kind: `${ctx.gvk.kind}List` });
}
