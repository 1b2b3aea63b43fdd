// DELETE and DELETE-collection of the generic store. The decision is
// delete-plan.ts (pure); here it is carried out: mark the object through a
// guaranteed update, then remove it with a compare-and-swap on the revision
// the mark produced, so a concurrent writer makes the delete retry instead of
// losing its write. propagationPolicy is validated and accepted; there is no
// garbage collector, so no orphan/foreground finalizers are added.
import { apiErrors, isApiError, type Status } from '../../api/errors.js';
import { isStorageError } from '../storage/interface.js';
import { decodeStored, groupResource, rethrow, type StoreContext } from './context.js';
import { checkPreconditions, planDelete, validateDeleteOptions } from './delete-plan.js';
import { withVersion } from './object.js';
import { listObjects } from './store-list.js';
import type { ApiObject, DeleteOptions, DeleteResult, ObjectList, Selection } from './types.js';

/** What delete needs of the store (structural, so this file does not import store.ts). */
export interface DeleteTarget {
  readonly ctx: StoreContext;
  key(namespace: string, name: string): string;
}

/** Attempts before a delete that keeps losing to concurrent writers answers 409. */
const DELETE_ATTEMPTS = 8;

function successStatus(target: DeleteTarget, obj: ApiObject): Status {
  const { info } = target.ctx.strategy;
  const details = { name: obj.metadata.name ?? '', group: info.group, kind: info.resource, ...(obj.metadata.uid === undefined ? {} : { uid: obj.metadata.uid }) };
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details, code: 200 } as Status;
}

function answer(target: DeleteTarget, obj: ApiObject, deleted: boolean): DeleteResult {
  // An object that stays is always answered as itself; a removed one as the strategy says.
  if (!deleted || target.ctx.strategy.returnDeletedObject === true) return { deleted, object: obj };
  return { deleted, object: successStatus(target, obj) };
}

export async function deleteObject(target: DeleteTarget, namespace: string, name: string, opts: DeleteOptions): Promise<DeleteResult> {
  validateDeleteOptions(opts);
  const { ctx } = target;
  const key = target.key(namespace, name);
  for (let attempt = 1; ; attempt++) {
    const kv = await ctx.storage.get(key).catch((e: unknown) => rethrow(ctx, e, name));
    if (kv === undefined) throw apiErrors.notFound(groupResource(ctx), name);
    let current = decodeStored(ctx, kv);
    checkPreconditions(current, opts, ctx.strategy);
    const plan = planDelete(ctx.strategy, current, opts, ctx.clock.now());
    if (plan.kind === 'pending') return answer(target, current, false);
    let modRevision = kv.modRevision;
    if (plan.mark !== undefined) {
      const mark = plan.mark;
      const marked: ApiObject = { ...current, metadata: { ...current.metadata, ...mark } };
      if (opts.dryRun === true) return answer(target, marked, plan.remove);
      try {
        current = await markForDeletion(target, namespace, name, marked, current);
      } catch (e) {
        if (isApiError(e) && e.reason === 'Conflict' && attempt < DELETE_ATTEMPTS) continue;
        throw e;
      }
      modRevision = Number(current.metadata.resourceVersion);
    }
    if (!plan.remove) return answer(target, current, false);
    if (opts.dryRun === true) return answer(target, current, true);
    try {
      const { revision } = await ctx.storage.delete(key, modRevision);
      const gone = withVersion(current, ctx.strategy.info, revision);
      await ctx.hooks.removed?.(gone);
      return answer(target, gone, true);
    } catch (e) {
      // Gone meanwhile: another deleter won (upstream tolerates this race for graceless deletes).
      if (isStorageError(e, 'NotFound')) return answer(target, current, true);
      if (isStorageError(e, 'Conflict') && attempt < DELETE_ATTEMPTS) continue;
      return rethrow(ctx, e, name);
    }
  }
}

/** Writes the deletion marks as a CAS on the object read (a concurrent write → 409, and the caller re-plans). */
async function markForDeletion(target: DeleteTarget, namespace: string, name: string, marked: ApiObject, current: ApiObject): Promise<ApiObject> {
  const { ctx } = target;
  const key = target.key(namespace, name);
  const same = marked.metadata.deletionTimestamp === current.metadata.deletionTimestamp && marked.metadata.deletionGracePeriodSeconds === current.metadata.deletionGracePeriodSeconds;
  if (same) return current;
  const { resourceVersion: _rv, ...metadata } = marked.metadata;
  try {
    const kv = await ctx.storage.update(key, ctx.codec.encode({ ...marked, metadata }), Number(current.metadata.resourceVersion));
    return decodeStored(ctx, kv);
  } catch (e) {
    if (isStorageError(e, 'Conflict')) throw apiErrors.conflict(groupResource(ctx), name);
    return rethrow(ctx, e, name);
  }
}

/** Every selected object (one consistent list), deleted one by one; objects gone meanwhile are skipped. */
export async function deleteCollection(target: DeleteTarget, namespace: string, selection: Selection | undefined, opts: DeleteOptions): Promise<ObjectList> {
  validateDeleteOptions(opts);
  const list = await listObjects(target.ctx, namespace, { readAt: { kind: 'MostRecent' }, ...(selection === undefined ? {} : { selection }) });
  for (const item of list.items) {
    try {
      await deleteObject(target, item.metadata.namespace ?? '', item.metadata.name ?? '', { ...opts, preconditions: undefined });
    } catch (e) {
      if (!(isApiError(e) && e.reason === 'NotFound')) throw e;
    }
  }
  return list;
}
