// The writes of a ResourceClient (§4.10–§4.12). Each call is one request
// (updateWithRetry: a bounded GET/PUT loop). For the Transport a write is
// idempotent — sent again after a 5xx or a dropped connection — only where
// a precondition makes a repeat harmless: a PUT or a patch carrying
// metadata.resourceVersion (a repeat that already applied gets 409), a
// DELETE with a uid or resourceVersion precondition (a repeat cannot delete
// a newer object of the same name). A create never is (under generateName a
// repeat makes a second object); neither is a deletecollection.
import type { ApiObject } from '../../api/codec/index.js';
import { isConflict } from '../../api/errors.js';
import type { PatchType } from '../../api/media.js';
import type { DeleteOptions, ListOptions, PatchOptions, WriteOptions } from '../types.js';
import { ClientRequestError } from '../errors.js';
import { deleteBody, deleteIsGuarded, writeQuery } from './query.js';
import { encodeBody } from './representation.js';
import { apiVersionOf } from './resources.js';
import { call, collectionRef, metaOf, objectRef, str, type Scope } from './scope.js';
import { get } from './reads.js';

/** updateWithRetry's default number of PUTs. */
export const DEFAULT_UPDATE_ATTEMPTS = 5;
const JSON_BODY = 'application/json';

/** POST to the collection (the object's namespace when the client has none); `metadata.generateName` lets the server pick the name. */
export async function create(s: Scope, obj: ApiObject, opts: WriteOptions = {}): Promise<ApiObject> {
  const ns = s.namespace !== '' ? s.namespace : str(metaOf(obj)['namespace']);
  const ref = collectionRef(s, 'POST', ns);
  if (s.type.namespaced && ns === '') throw new ClientRequestError(ref, 'metadata.namespace', `a ${s.type.kind} is namespaced: give the client or the object a namespace`);
  return call(s, { ref, query: writeQuery(ref, opts), idempotent: false, signal: opts.signal, body: (wire) => encodeBody(s.ctx.codec, s.type, wire, obj), kinds: [s.type.kind] });
}

/** PUT of the whole object (or a subresource, e.g. `status`), with the resourceVersion the object carries. */
export async function update(s: Scope, obj: ApiObject, opts: WriteOptions & { subresource?: string } = {}): Promise<ApiObject> {
  const meta = metaOf(obj);
  const ref = objectRef(s, 'PUT', str(meta['name']), { subresource: opts.subresource, objectNamespace: str(meta['namespace']) });
  const guarded = str(meta['resourceVersion']) !== '';
  return call(s, { ref, query: writeQuery(ref, opts), idempotent: guarded, signal: opts.signal, body: (wire) => encodeBody(s.ctx.codec, s.type, wire, obj), kinds: [s.type.kind] });
}

/**
 * GET (most recent), `mutate`, PUT; a 409 Conflict starts over from a fresh
 * GET, at most `attempts` PUTs in all (§4.12.4). `mutate` returning
 * undefined means nothing to change: the current object is returned and
 * nothing is written. Other errors end it at once.
 */
export async function updateWithRetry(s: Scope, name: string, mutate: (current: ApiObject) => ApiObject | undefined, opts: WriteOptions & { attempts?: number; subresource?: string } = {}): Promise<ApiObject> {
  const { attempts = DEFAULT_UPDATE_ATTEMPTS, ...writeOpts } = opts;
  for (let attempt = 1; ; attempt++) {
    const current = await get(s, name, opts.signal === undefined ? {} : { signal: opts.signal });
    const next = mutate(current);
    if (next === undefined) return current;
    try {
      return await update(s, next, writeOpts);
    } catch (err) {
      if (!isConflict(err) || attempt >= attempts) throw err;
    }
  }
}

/** A patch body is always JSON (any representation); a string or bytes are sent as given. */
export async function patch(s: Scope, name: string, type: PatchType, body: unknown, opts: PatchOptions & { subresource?: string } = {}): Promise<ApiObject> {
  const ref = objectRef(s, 'PATCH', name, { subresource: opts.subresource });
  const bytes = typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
  const guarded = typeof body === 'object' && body !== null && !Array.isArray(body) && !(body instanceof Uint8Array) && str(metaOf(body as ApiObject)['resourceVersion']) !== '';
  return call(s, { ref, query: writeQuery(ref, opts, type), idempotent: guarded, signal: opts.signal, body: () => ({ body: bytes, contentType: type }), kinds: [s.type.kind] });
}

/** The deleted object (200), the object marked for deletion (202), or a Status for kinds that answer one. */
export async function del(s: Scope, name: string, opts: DeleteOptions = {}): Promise<ApiObject> {
  const ref = objectRef(s, 'DELETE', name);
  const body = deleteBody(apiVersionOf(s.type), opts);
  return call(s, {
    ref,
    idempotent: deleteIsGuarded(opts),
    signal: opts.signal,
    ...(body === undefined ? {} : { body: () => ({ body, contentType: JSON_BODY }) }),
    kinds: [s.type.kind, 'Status'],
  });
}

/** DELETE of the collection (selected by labels and fields): a Status, or the list some servers answer. */
export async function deleteCollection(s: Scope, opts: DeleteOptions & Pick<ListOptions, 'labelSelector' | 'fieldSelector'> = {}): Promise<ApiObject> {
  const ref = collectionRef(s, 'DELETE');
  const query = new URLSearchParams();
  if (opts.labelSelector !== undefined && opts.labelSelector !== '') query.set('labelSelector', opts.labelSelector);
  if (opts.fieldSelector !== undefined && opts.fieldSelector !== '') query.set('fieldSelector', opts.fieldSelector);
  const body = deleteBody(apiVersionOf(s.type), opts);
  return call(s, {
    ref,
    query,
    idempotent: false,
    signal: opts.signal,
    ...(body === undefined ? {} : { body: () => ({ body, contentType: JSON_BODY }) }),
    kinds: ['Status', `${s.type.kind}List`],
  });
}
