// The namespace lifecycle (upstream's NamespaceLifecycle admission plus a
// small namespace controller, run inside the requests that need it rather
// than as a loop): creating in a missing namespace is 404 and in a
// terminating one 403; DELETE of a namespace marks it Terminating, deletes
// its content through each namespaced store (graceful pods and objects with
// finalizers stay until they go), and once nothing is left empties
// spec.finalizers and removes the namespace. Each removal of a namespaced
// object re-checks its namespace, so the namespace goes with its last object.
import { ApiError, apiErrors, isApiError, type FieldError, type GroupResource } from '../../api/errors.js';
import { isQualifiedName } from '../validation/names.js';
import { checkPreconditions, validateDeleteOptions } from './delete-plan.js';
import { timestamp } from './object.js';
import { NAMESPACE_FINALIZER, specFinalizers } from './resources/namespaces.js';
import { deleteObject } from './store-delete.js';
import type { GenericStore } from './store.js';
import type { ApiObject, Clock, DeleteOptions, DeleteResult, WriteOptions } from './types.js';

/** Namespaces that may not be deleted (upstream's immortal namespaces, renamed). */
export const IMMORTAL_NAMESPACES: readonly string[] = ['default', 'platform-system', 'platform-public'];
/** Namespaces the server creates at start. */
export const SYSTEM_NAMESPACES: readonly string[] = [...IMMORTAL_NAMESPACES, 'platform-node-lease'];

const NAMESPACES: GroupResource = { group: '', resource: 'namespaces' };
const PURGE_MESSAGE = 'The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.';

const isTerminating = (ns: ApiObject): boolean => ns.metadata.deletionTimestamp !== undefined || (ns.status as { phase?: unknown } | undefined)?.phase === 'Terminating';

export class NamespaceLifecycle {
  /** Namespaces this process is purging now: their content's removals need not re-check them. */
  private readonly purging = new Set<string>();

  constructor(
    private readonly namespaces: GenericStore,
    /** The stores of every namespaced resource (read when needed: stores may be added later). */
    private readonly contents: () => readonly GenericStore[],
    private readonly clock: Clock,
  ) {}

  /** Admission for creates of namespaced objects: the namespace must exist and not be terminating. */
  async admitCreate(obj: ApiObject, gr: GroupResource): Promise<void> {
    const ns = obj.metadata.namespace ?? '';
    // Only an active namespace is taken from the cache; a miss (a namespace just made) or a terminating one (perhaps recreated since) is read live.
    const cached = this.namespaces.cached().lookup(this.namespaces.key('', ns));
    if (cached.fresh && cached.object !== undefined && !isTerminating(cached.object)) return;
    let namespace: ApiObject;
    try {
      namespace = await this.namespaces.get('', ns);
    } catch (e) {
      if (isApiError(e) && e.reason === 'NotFound') throw apiErrors.notFound(NAMESPACES, ns);
      throw e;
    }
    if (isTerminating(namespace)) {
      const err = apiErrors.forbidden(gr, obj.metadata.name ?? '', `unable to create new content in namespace ${ns} because it is being terminated`);
      throw new ApiError(err.code, err.reason, err.message, { details: { ...err.details, causes: [{ reason: 'NamespaceTerminating', message: `namespace ${ns} is being terminated`, field: 'metadata.namespace' }] } });
    }
  }

  /**
   * Creates the system namespaces that are missing, then waits for the
   * namespace cache to sync (so creates read no storage for their namespace
   * from the first request on). Idempotent; for server start.
   */
  async ensureSystemNamespaces(): Promise<void> {
    for (const name of SYSTEM_NAMESPACES) {
      try {
        await this.namespaces.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      } catch (e) {
        if (!(isApiError(e) && e.reason === 'AlreadyExists')) throw e;
      }
    }
    await this.namespaces.cached().synced();
  }

  /** DELETE of a namespace (see the file comment). */
  async delete(name: string, opts: DeleteOptions = {}): Promise<DeleteResult> {
    validateDeleteOptions(opts);
    if (IMMORTAL_NAMESPACES.includes(name)) throw apiErrors.forbidden(NAMESPACES, name, 'this namespace may not be deleted');
    const current = await this.namespaces.get('', name);
    checkPreconditions(current, opts, this.namespaces.strategy);
    if (!isTerminating(current)) {
      const now = timestamp(this.clock.now());
      const marked = await this.namespaces.systemUpdate(
        '',
        name,
        (ns) => {
          ns.metadata.deletionTimestamp ??= now;
          ns.status = { ...(ns.status as object | undefined), phase: 'Terminating' };
        },
        opts,
      );
      if (opts.dryRun === true) return { deleted: false, object: marked };
    } else if (opts.dryRun === true) {
      if (specFinalizers(current).length > 0) throw apiErrors.conflict(NAMESPACES, name, PURGE_MESSAGE);
      return { deleted: true, object: current };
    }
    const gone = await this.purge(name);
    if (gone !== undefined) return { deleted: true, object: gone };
    const latest = await this.namespaces.get('', name);
    if (isTerminating(current) && specFinalizers(latest).length > 0) throw apiErrors.conflict(NAMESPACES, name, PURGE_MESSAGE);
    return { deleted: false, object: latest };
  }

  /**
   * PUT namespaces/<name>/finalize: replaces spec.finalizers only (as
   * upstream's FinalizeREST), with the usual resourceVersion precondition.
   * A terminating namespace whose finalizers are now all gone is removed.
   */
  async finalize(name: string, body: ApiObject, opts: WriteOptions = {}): Promise<ApiObject> {
    if ((body.metadata?.name ?? '') !== name) throw apiErrors.badRequest(`the name of the object (${String(body.metadata?.name ?? '')}) does not match the name on the URL (${name})`);
    const wanted = specFinalizers(body);
    const errs: FieldError[] = [];
    wanted.forEach((f, i) => {
      for (const m of isQualifiedName(f)) errs.push({ type: 'FieldValueInvalid', field: `spec.finalizers[${i}]`, value: f, detail: m });
    });
    if (errs.length > 0) throw apiErrors.invalid({ group: '', kind: 'Namespace' }, name, errs);
    const rv = body.metadata.resourceVersion ?? '';
    const updated = await this.namespaces.systemUpdate(
      '',
      name,
      (ns) => {
        if (rv !== '' && rv !== ns.metadata.resourceVersion) throw apiErrors.conflict(NAMESPACES, name);
        ns.spec = { ...(ns.spec as object | undefined), finalizers: wanted };
      },
      opts,
    );
    if (opts.dryRun === true || !isTerminating(updated) || wanted.length > 0) return updated;
    const res = await deleteObject(this.namespaces, '', name, {});
    return res.object as ApiObject;
  }

  /** Hook after a namespaced object was removed: finishes its namespace if that was the last thing in it. Never throws. */
  async contentRemoved(namespace: string): Promise<void> {
    if (this.purging.has(namespace)) return;
    try {
      const ns = await this.namespaces.get('', namespace);
      if (isTerminating(ns)) await this.finalizeIfEmpty(namespace);
    } catch {
      // The namespace is gone or the store is closing: nothing left to finish here.
    }
  }

  /** Deletes the namespace's content, then the namespace if nothing is left. Answers the removed namespace, or undefined. */
  private async purge(name: string): Promise<ApiObject | undefined> {
    if (this.purging.has(name)) return undefined;
    this.purging.add(name);
    try {
      for (const store of this.contents()) await store.deleteCollection(name, undefined, {});
      return await this.finalizeIfEmpty(name);
    } finally {
      this.purging.delete(name);
    }
  }

  private async finalizeIfEmpty(name: string): Promise<ApiObject | undefined> {
    for (const store of this.contents()) {
      const left = await store.list(name, { readAt: { kind: 'MostRecent' }, limit: 1 });
      if (left.items.length > 0) return undefined;
    }
    try {
      const finalized = await this.namespaces.systemUpdate('', name, (ns) => {
        const spec = (ns.spec ??= {}) as Record<string, unknown>;
        spec.finalizers = specFinalizers(ns).filter((f) => f !== NAMESPACE_FINALIZER);
      });
      // Other spec finalizers belong to other controllers: the namespace waits for them.
      if (specFinalizers(finalized).length > 0) return undefined;
      const res = await deleteObject(this.namespaces, '', name, {});
      return res.deleted ? (res.object as ApiObject) : undefined;
    } catch (e) {
      if (isApiError(e) && e.reason === 'NotFound') return undefined;
      throw e;
    }
  }
}
