// The generic store of one resource (kube-apiserver's
// registry/generic/registry/store.go): every verb once, the resource's
// Strategy for what differs. Called by the HTTP handlers (and by internal
// writers such as the namespace lifecycle and pod binding); every method may
// block on storage, none holds a lock across calls: concurrent writers are
// ordered by the storage's compare-and-swap on the revision. Reads are
// idempotent; writes are not (a retried create answers AlreadyExists).
import { ApiError, apiErrors, isApiError } from '../../api/errors.js';
import { isStorageError } from '../storage/interface.js';
import { decodeStored, groupResource, invalidError, rethrow, type StoreContext } from './context.js';
import { deleteCollection, deleteObject } from './store-delete.js';
import { listObjects } from './store-list.js';
import { watchObjects } from './store-watch.js';
import { StoreLister } from './lister.js';
import { clone, forStorage, objectKey, resourcePrefix, sameStored, withVersion } from './object.js';
import { waitForRevision } from './revision.js';
import { deleteOnUpdate, normalize, prepareCreate, prepareUpdate, servesUpdate } from './write-prep.js';
import type { ApiObject, DeleteOptions, DeleteResult, ListRequest, ObjectList, ReadAt, Selection, UpdateOptions, WatchEvent, WatchRequest, WriteOptions } from './types.js';

/** The answer of an update: the object, and whether the PUT created it (201). */
export interface UpdateResult {
  object: ApiObject;
  created: boolean;
}

/** Turns the current object into the desired one; may throw an ApiError to refuse. */
export type TryUpdate = (current: ApiObject) => ApiObject | Promise<ApiObject>;

/** Generated names that collide are retried this often before AlreadyExists. */
const GENERATE_NAME_ATTEMPTS = 5;

export class GenericStore {
  /** The highest revision written through this store by this process (the lister's freshness bar). */
  private written = 0;
  private lister: StoreLister | undefined;

  constructor(readonly ctx: StoreContext) {}

  /**
   * The watch-fed cache of this resource (lister.ts), made on first use and
   * shared by every caller; for admission reads that may fall back to `get`.
   */
  cached(): StoreLister {
    this.lister ??= new StoreLister({
      storage: this.ctx.storage,
      prefix: resourcePrefix(this.ctx.strategy.info),
      decode: (kv) => decodeStored(this.ctx, kv),
      writtenUpTo: () => this.written,
    });
    return this.lister;
  }

  private wrote(revision: number): number {
    if (revision > this.written) this.written = revision;
    return revision;
  }

  get strategy(): StoreContext['strategy'] {
    return this.ctx.strategy;
  }

  key(namespace: string, name: string): string {
    return objectKey(this.ctx.strategy.info, namespace, name);
  }

  /** POST: the created object (on dry-run, the object that would have been stored, without resourceVersion). */
  async create(namespace: string, body: ApiObject, opts: WriteOptions = {}): Promise<ApiObject> {
    const generated = (body.metadata?.name ?? '') === '' && (body.metadata?.generateName ?? '') !== '';
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.createOnce(namespace, body, opts);
      } catch (e) {
        if (!generated || attempt >= GENERATE_NAME_ATTEMPTS || !isApiError(e) || e.reason !== 'AlreadyExists') throw e;
      }
    }
  }

  private async createOnce(namespace: string, body: ApiObject, opts: WriteOptions): Promise<ApiObject> {
    const { ctx } = this;
    const { obj, errors } = prepareCreate(ctx.strategy, body, namespace, ctx.clock.now());
    const name = obj.metadata.name ?? '';
    if (errors.length > 0) throw invalidError(ctx, name, errors);
    await ctx.hooks.admitCreate?.(obj);
    const key = this.key(obj.metadata.namespace ?? '', name);
    if (opts.dryRun === true) {
      if ((await ctx.storage.get(key).catch((e: unknown) => rethrow(ctx, e, name))) !== undefined) throw apiErrors.alreadyExists(groupResource(ctx), name);
      return obj;
    }
    try {
      const kv = await ctx.storage.create(key, ctx.codec.encode(forStorage(obj)));
      return withVersion(obj, ctx.strategy.info, this.wrote(kv.modRevision));
    } catch (e) {
      return rethrow(ctx, e, name);
    }
  }

  /** GET of one object, with the read semantics of §4.13 (Most Recent, Any, Not older than; Exact as a list would). */
  async get(namespace: string, name: string, readAt: ReadAt = { kind: 'MostRecent' }): Promise<ApiObject> {
    const { ctx } = this;
    let revision: number | undefined;
    if (readAt.kind === 'Continue') throw apiErrors.badRequest('continue is not supported for get');
    if (readAt.kind === 'NotOlderThan' || readAt.kind === 'Exact') await waitForRevision(ctx.storage, readAt.rv, ctx.options.futureRevisionWaitMs);
    if (readAt.kind === 'Exact') revision = readAt.rv;
    try {
      const kv = await ctx.storage.get(this.key(namespace, name), revision);
      if (kv === undefined) throw apiErrors.notFound(groupResource(ctx), name);
      return decodeStored(ctx, kv);
    } catch (e) {
      return rethrow(ctx, e, name);
    }
  }

  list(namespace: string, req: ListRequest): Promise<ObjectList> {
    return listObjects(this.ctx, namespace, req);
  }

  /** Resolves once the watch's start is settled (rejects with 504 for a future resourceVersion); events then flow until `req.signal` aborts. */
  watch(namespace: string, req: WatchRequest): Promise<AsyncIterable<WatchEvent>> {
    return watchObjects(this.ctx, namespace, req);
  }

  /**
   * PUT: replaces the object. A resourceVersion in the body must equal the
   * stored one (409 otherwise); none means "whatever is stored" when the
   * strategy allows unconditional updates. A missing object is created only
   * where the strategy allows it.
   */
  async update(namespace: string, name: string, body: ApiObject, opts: UpdateOptions = {}): Promise<UpdateResult> {
    const bodyName = body.metadata?.name ?? '';
    if (bodyName !== name) throw apiErrors.badRequest(`the name of the object (${String(bodyName)}) does not match the name on the URL (${name})`);
    const sub = opts.subresource ?? '';
    if (!servesUpdate(this.ctx.strategy, sub)) {
      throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    }
    const rv = body.metadata?.resourceVersion ?? '';
    // Upstream checks this only for an object that exists: a PUT that creates needs no resourceVersion.
    const unconditional = (): ApiObject => {
      if (rv === '' && this.ctx.strategy.allowUnconditionalUpdate === false) {
        throw apiErrors.invalid({ group: this.ctx.strategy.info.group, kind: this.ctx.strategy.info.kind }, name, [
          { type: 'FieldValueInvalid', field: 'metadata.resourceVersion', value: 0, detail: 'must be specified for an update' },
        ]);
      }
      return body;
    };
    try {
      const object = await this.guaranteedUpdate(namespace, name, unconditional, opts);
      return { object, created: false };
    } catch (e) {
      if (!isApiError(e) || e.reason !== 'NotFound' || sub !== '' || !this.ctx.strategy.allowCreateOnUpdate) throw e;
      let fresh = normalize(body, this.ctx.strategy);
      fresh.metadata.name = name;
      if (opts.transform !== undefined) fresh = opts.transform(fresh, undefined);
      return { object: await this.create(namespace, fresh, opts), created: true };
    }
  }

  /**
   * Read, apply `tryUpdate`, compare-and-swap; on a concurrent write, read
   * again and re-apply (bounded by maxUpdateAttempts, then 409). A
   * resourceVersion the result carries is a precondition (409 when stale).
   * An update that changes nothing stores nothing and keeps the
   * resourceVersion. For patches and internal writers.
   */
  async guaranteedUpdate(namespace: string, name: string, tryUpdate: TryUpdate, opts: UpdateOptions = {}): Promise<ApiObject> {
    const { ctx } = this;
    const key = this.key(namespace, name);
    const gr = groupResource(ctx);
    if (!servesUpdate(ctx.strategy, opts.subresource ?? '')) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    for (let attempt = 1; ; attempt++) {
      const kv = await ctx.storage.get(key).catch((e: unknown) => rethrow(ctx, e, name));
      if (kv === undefined) throw apiErrors.notFound(gr, name);
      const old = decodeStored(ctx, kv);
      const tried = await tryUpdate(clone(old));
      const desired = opts.transform === undefined ? tried : opts.transform(tried, old);
      const rv = desired.metadata?.resourceVersion ?? '';
      if (rv !== '' && rv !== old.metadata.resourceVersion) throw apiErrors.conflict(gr, name);
      const { obj, errors } = prepareUpdate(ctx.strategy, desired, old, opts.subresource ?? '');
      if (errors.length > 0) throw invalidError(ctx, name, errors);
      if (sameStored(obj, old)) return old;
      try {
        return await this.commitUpdate(key, obj, old, opts, kv.modRevision);
      } catch (e) {
        if (!isStorageError(e, 'Conflict')) return rethrow(ctx, e, name);
        // A retry re-applies to the new state: a fixed resourceVersion (PUT) then no longer matches → 409.
        if (attempt >= ctx.options.maxUpdateAttempts) throw apiErrors.conflict(gr, name);
      }
    }
  }

  private async commitUpdate(key: string, obj: ApiObject, old: ApiObject, opts: WriteOptions, modRevision: number): Promise<ApiObject> {
    const { ctx } = this;
    if (deleteOnUpdate(obj, old)) {
      if (opts.dryRun === true) return obj;
      const { revision } = await ctx.storage.delete(key, modRevision);
      this.wrote(revision);
      await ctx.hooks.removed?.(obj);
      return withVersion(obj, ctx.strategy.info, revision);
    }
    if (opts.dryRun === true) return obj;
    const kv = await ctx.storage.update(key, ctx.codec.encode(forStorage(obj)), modRevision);
    return withVersion(obj, ctx.strategy.info, this.wrote(kv.modRevision));
  }

  /**
   * A write of the server's own bookkeeping (a namespace turning
   * Terminating, its spec.finalizers emptied): `mutate` changes the current
   * object in place; no strategy hook, no validation, a compare-and-swap
   * retried under contention. Answers the stored object (unchanged when
   * `mutate` changed nothing). Not for client requests.
   */
  async systemUpdate(namespace: string, name: string, mutate: (obj: ApiObject) => void, opts: WriteOptions = {}): Promise<ApiObject> {
    const { ctx } = this;
    const key = this.key(namespace, name);
    for (let attempt = 1; ; attempt++) {
      const kv = await ctx.storage.get(key).catch((e: unknown) => rethrow(ctx, e, name));
      if (kv === undefined) throw apiErrors.notFound(groupResource(ctx), name);
      const old = decodeStored(ctx, kv);
      const obj = clone(old);
      mutate(obj);
      if (sameStored(obj, old)) return old;
      if (opts.dryRun === true) return obj;
      try {
        const written = await ctx.storage.update(key, ctx.codec.encode(forStorage(obj)), kv.modRevision);
        return withVersion(obj, ctx.strategy.info, this.wrote(written.modRevision));
      } catch (e) {
        if (!isStorageError(e, 'Conflict') || attempt >= ctx.options.maxUpdateAttempts) return rethrow(ctx, e, name);
      }
    }
  }

  /** DELETE of one object: two-phase with finalizers, graceful where the strategy asks for it (§3). */
  delete(namespace: string, name: string, opts: DeleteOptions = {}): Promise<DeleteResult> {
    return deleteObject(this, namespace, name, opts);
  }

  /** DELETE of a collection: every selected object deleted as `delete` would; answers the list as it was. */
  deleteCollection(namespace: string, selection: Selection | undefined, opts: DeleteOptions = {}): Promise<ObjectList> {
    return deleteCollection(this, namespace, selection, opts);
  }
}
