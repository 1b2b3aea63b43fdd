// What the informer accepts from its ListerWatcher. Objects and events that
// break the contract (no name, no resourceVersion, another kind, no
// namespace for a namespaced type, an unknown event type) become a
// ClientProtocolError naming the request and the field; the reflector then
// drops the whole list or watch, keeps its last good store and relists.
// Pure.
import { ClientProtocolError, type RequestRef } from '../errors.js';
import type { ApiObject, ListerWatcher, ResourceType, WatchEvent } from '../types.js';
import { resourcePath } from '../rest/resources.js';
import { nameOf, namespaceOf, resourceVersionOf } from './store.js';

/** The request a ListerWatcher's list or watch is, for messages: `GET /api/v1/namespaces/a/pods?watch=true`. */
export function requestOf(lw: Pick<ListerWatcher, 'type' | 'namespace'>, verb: 'list' | 'watch'): RequestRef {
  return { method: 'GET', path: `${resourcePath(lw.type, { namespace: lw.namespace })}${verb === 'watch' ? '?watch=true' : ''}` };
}

/** The first thing wrong with `obj` as an object of `type`: [field, message], or undefined. */
export function objectProblem(obj: unknown, type: ResourceType): [string, string] | undefined {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return ['object', 'is not an object'];
  const o = obj as ApiObject;
  const kind = o['kind'];
  if (kind !== undefined && kind !== type.kind) return ['kind', `is ${JSON.stringify(kind)}, expected ${JSON.stringify(type.kind)}`];
  const m = o['metadata'];
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return ['metadata', 'is missing'];
  if (nameOf(o) === '') return ['metadata.name', 'is missing'];
  if (resourceVersionOf(o) === '') return ['metadata.resourceVersion', 'is missing'];
  if (type.namespaced && namespaceOf(o) === '') return ['metadata.namespace', 'is missing'];
  return undefined;
}

/** Throws when a list item is not an object of the informer's type. */
export function checkListItem(lw: Pick<ListerWatcher, 'type' | 'namespace'>, obj: unknown, index: number): asserts obj is ApiObject {
  const p = objectProblem(obj, lw.type);
  if (p !== undefined) throw new ClientProtocolError(requestOf(lw, 'list'), `items[${index}].${p[0]}`, p[1]);
}

const EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']);

/** Throws when a watch event breaks the contract; a BOOKMARK needs only its version (and a matching kind). Allocates nothing for a good event. */
export function checkEvent(lw: Pick<ListerWatcher, 'type' | 'namespace'>, ev: WatchEvent): void {
  const p = eventProblem(ev, lw.type);
  if (p !== undefined) throw new ClientProtocolError(requestOf(lw, 'watch'), p[0], p[1]);
}

function eventProblem(ev: WatchEvent, type: ResourceType): [string, string] | undefined {
  if (!EVENT_TYPES.has(ev.type)) return ['type', `unknown watch event type ${JSON.stringify(ev.type)}`];
  const o = ev.object as unknown;
  if (ev.type !== 'BOOKMARK') {
    const p = objectProblem(o, type);
    return p === undefined ? undefined : [`object.${p[0]}`, `${ev.type} event: ${p[1]}`];
  }
  if (typeof o !== 'object' || o === null) return ['object', 'BOOKMARK without an object'];
  const kind = ev.object['kind'];
  if (kind !== undefined && kind !== type.kind) return ['object.kind', `is ${JSON.stringify(kind)}, expected ${JSON.stringify(type.kind)}`];
  if (resourceVersionOf(ev.object) === '') return ['object.metadata.resourceVersion', 'BOOKMARK without a resourceVersion'];
  return undefined;
}
