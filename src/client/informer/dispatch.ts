// Applies changes to the store and hands them to the handlers, in that
// order (a handler reading the store sees the change it is told about).
// Called only from the reflector's loop, synchronously, one change at a
// time, so handlers run in event order and never concurrently. A handler
// that throws is logged (once per distinct message) and the others still
// run. A handler added late first receives the store's current objects as
// adds, so its own replay of the stream adds up to the store.
import type { ApiObject, InformerHandlers } from '../types.js';
import type { Delta } from './diff.js';
import { OnceLog, errorFields } from './log-once.js';
import { resourceVersionOf, type IndexedStore } from './store.js';

export class Dispatcher {
  private readonly handlers: InformerHandlers[] = [];

  constructor(
    readonly store: IndexedStore,
    private readonly log: OnceLog,
  ) {}

  addHandlers(h: InformerHandlers): void {
    this.handlers.push(h);
    for (const obj of this.store.list()) this.call(h, 'onAdd', obj, undefined);
  }

  /**
   * One change. A delete shows the handlers `shown` when given (a watch's
   * DELETED carries the final state) and the store's last state otherwise.
   */
  apply(d: Delta, shown?: ApiObject): void {
    switch (d.type) {
      case 'add':
        this.store.set(d.key, d.obj);
        return this.each('onAdd', d.obj, undefined);
      case 'update':
        this.store.set(d.key, d.obj);
        return this.each('onUpdate', d.old, d.obj);
      case 'delete':
        this.store.delete(d.key);
        return this.each('onDelete', shown ?? d.old, undefined);
    }
  }

  /** An ADDED or MODIFIED event: an add, an update, or nothing when the store already has that version. */
  upsert(key: string, obj: ApiObject): void {
    const old = this.store.get(key);
    if (old === undefined) this.apply({ type: 'add', key, obj });
    else if (resourceVersionOf(old) !== resourceVersionOf(obj)) this.apply({ type: 'update', key, old, obj });
  }

  /** A DELETED event: nothing when the store does not have the key (never added, or already gone). */
  remove(key: string, shown: ApiObject): void {
    const old = this.store.get(key);
    if (old !== undefined) this.apply({ type: 'delete', key, old }, shown);
  }

  private each(fn: keyof InformerHandlers, a: ApiObject, b: ApiObject | undefined): void {
    // Handlers added by a handler start with the next change (they got the store as adds).
    const n = this.handlers.length;
    for (let i = 0; i < n; i++) this.call(this.handlers[i]!, fn, a, b);
  }

  private call(h: InformerHandlers, fn: keyof InformerHandlers, a: ApiObject, b: ApiObject | undefined): void {
    try {
      if (fn === 'onUpdate') h.onUpdate?.(a, b!);
      else h[fn]?.(a);
    } catch (e) {
      this.log.once('error', `handler:${fn}:${e instanceof Error ? e.message : String(e)}`, `informer: ${fn} handler threw`, errorFields(e));
    }
  }
}
