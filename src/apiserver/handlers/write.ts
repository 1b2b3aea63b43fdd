// POST (create, or a subresource action), PUT (update; create where the
// resource allows it), DELETE and DELETE of a collection: spec §4.2/§4.3,
// §3 (two-phase deletion), §4.11 (dry-run) and §4.12 rule 1 (409 on a stale
// resourceVersion). The generic store does the work; this file maps HTTP to it.
import { apiErrors } from '../../api/errors.js';
import { parseDeleteQuery, parseWriteQuery } from '../../api/list-query.js';
import { parseListQuery } from '../../api/list-query.js';
import type { DeleteOptions } from '../registry/types.js';
import { recordUpdate } from '../apply/update.js';
import type { ApiObject } from '../registry/types.js';
import { admit, created as afterCreate } from './admit.js';
import { cannotHandle, readObject } from './body.js';

const DELETE_OPTIONS = { kind: 'DeleteOptions', version: 'v1' };
import { tracking } from './fields.js';
import { updateSubresource, type RequestContext } from './context.js';
import { selectionOf } from './read.js';
import { sendObject, STATUS_GVK, successStatus } from './respond.js';

function checkNamespace(ctx: RequestContext, ns: string | undefined): void {
  if (ns !== undefined && ns !== '' && ctx.info.namespace !== '' && ns !== ctx.info.namespace) {
    throw apiErrors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
}

export async function handleCreate(ctx: RequestContext): Promise<void> {
  const q = parseWriteQuery(ctx.req.url.searchParams, 'create');
  const action = ctx.info.subresource === '' ? undefined : ctx.entry.actions[ctx.info.subresource];
  if (action !== undefined) {
    const body = await readObject(ctx, action.bodyKind, q.fieldValidation);
    const out = await action.create(ctx.info.namespace, ctx.info.name, body, { dryRun: q.dryRun, user: ctx.req.user, signal: ctx.req.signal });
    sendObject(ctx.answer, out.status, out.object, out.object.kind === 'Status' ? STATUS_GVK : { ...action.bodyKind, kind: out.object.kind ?? action.bodyKind.kind });
    return;
  }
  if (ctx.info.subresource !== '' || ctx.info.name !== '') throw apiErrors.methodNotSupported({ group: ctx.info.apiGroup, resource: ctx.info.resource }, 'create');
  const obj = await readObject(ctx, ctx.gvk, q.fieldValidation);
  checkNamespace(ctx, obj.metadata.namespace);
  const withFields = recordUpdate(undefined, obj, tracking(ctx, q.fieldManager)) as unknown as ApiObject;
  await admit(ctx, withFields, undefined, q.dryRun);
  const created = await ctx.entry.store.create(ctx.info.namespace, withFields, { dryRun: q.dryRun });
  await afterCreate(ctx, created, q.dryRun);
  sendObject(ctx.answer, 201, created, ctx.gvk);
}

export async function handleUpdate(ctx: RequestContext): Promise<void> {
  const q = parseWriteQuery(ctx.req.url.searchParams, 'update');
  const obj = await readObject(ctx, ctx.gvk, q.fieldValidation);
  checkNamespace(ctx, obj.metadata.namespace);
  const bodyName = obj.metadata.name ?? '';
  if (bodyName !== '' && bodyName !== ctx.info.name) throw apiErrors.badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${ctx.info.name})`);
  obj.metadata.name = ctx.info.name;
  const subresource = updateSubresource(ctx);
  await admit(ctx, obj, undefined, q.dryRun);
  const t = tracking(ctx, q.fieldManager);
  const transform = (desired: ApiObject, old: ApiObject | undefined): ApiObject => recordUpdate(old, desired, t) as unknown as ApiObject;
  const { object, created } = await ctx.entry.store.update(ctx.info.namespace, ctx.info.name, obj, { dryRun: q.dryRun, subresource, transform });
  sendObject(ctx.answer, created ? 201 : 200, object, ctx.gvk);
}

/** DeleteOptions from the query, with a DeleteOptions body (when sent) over them, as upstream merges them. */
async function deleteOptions(ctx: RequestContext): Promise<DeleteOptions> {
  const q = parseDeleteQuery(ctx.req.url.searchParams);
  const opts: DeleteOptions = { dryRun: q.dryRun };
  if (q.gracePeriodSeconds !== undefined) opts.gracePeriodSeconds = q.gracePeriodSeconds;
  if (q.propagationPolicy !== undefined) opts.propagationPolicy = q.propagationPolicy;
  const bytes = await ctx.req.body();
  if (bytes.length === 0) return opts;
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw apiErrors.badRequest(cannotHandle(DELETE_OPTIONS, (err as Error).message));
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw apiErrors.badRequest(cannotHandle(DELETE_OPTIONS, 'not an object'));
  const b = body as Record<string, unknown>;
  if (typeof b.gracePeriodSeconds === 'number') opts.gracePeriodSeconds = b.gracePeriodSeconds;
  if (typeof b.propagationPolicy === 'string') opts.propagationPolicy = b.propagationPolicy;
  if (typeof b.orphanDependents === 'boolean') opts.orphanDependents = b.orphanDependents;
  if (Array.isArray(b.dryRun) && b.dryRun.includes('All')) opts.dryRun = true;
  if (typeof b.preconditions === 'object' && b.preconditions !== null) {
    const p = b.preconditions as Record<string, unknown>;
    opts.preconditions = { ...(typeof p.uid === 'string' ? { uid: p.uid } : {}), ...(typeof p.resourceVersion === 'string' ? { resourceVersion: p.resourceVersion } : {}) };
  }
  return opts;
}

export async function handleDelete(ctx: RequestContext): Promise<void> {
  const opts = await deleteOptions(ctx);
  const out = await ctx.entry.store.delete(ctx.info.namespace, ctx.info.name, opts);
  const obj = out.object;
  sendObject(ctx.answer, 200, obj, obj.kind === 'Status' ? STATUS_GVK : ctx.gvk);
}

export async function handleDeleteCollection(ctx: RequestContext): Promise<void> {
  const opts = await deleteOptions(ctx);
  const q = parseListQuery(ctx.req.url.searchParams, { listChunking: ctx.deps.gates.chunking });
  const selection = selectionOf(q.labelSelector, q.fieldSelector);
  await ctx.entry.store.deleteCollection(ctx.info.namespace, selection, opts);
  // Spec §4.2: deletecollection answers 200 Status.
  sendObject(ctx.answer, 200, successStatus({ group: ctx.info.apiGroup, kind: ctx.info.resource }), STATUS_GVK);
}

