// One resource type in one namespace, as the verbs of a ResourceClient see
// it: its paths, and one request → decoded, kind-checked object. Shared by
// reads.ts and writes.ts; no state of its own beyond the RestContext's.
import { isCodecError, type ApiObject, type DecodeOptions } from '../../api/codec/index.js';
import type { HttpMethod, ResourceType, TransportRequest } from '../types.js';
import { ClientRequestError, type RequestRef } from '../errors.js';
import { acceptFor, checkKind, decodeBody, type Wire } from './representation.js';
import { resourcePath } from './resources.js';
import { send, type RestContext } from './send.js';
import { metaOf, str } from '../meta.js';

export interface Scope {
  readonly ctx: RestContext;
  readonly type: ResourceType;
  /** '' for cluster-scoped types, or a namespaced type across all namespaces. */
  readonly namespace: string;
}

/** A request as errors name it, with a method the Transport knows. */
export type Ref = RequestRef & { readonly method: HttpMethod };

/** What one verb sends, apart from Accept (which follows the representation). */
export interface Call {
  readonly ref: Ref;
  readonly query?: URLSearchParams;
  readonly idempotent: boolean;
  readonly signal: AbortSignal | undefined;
  /** The body for the representation in use, and its Content-Type. */
  readonly body?: (wire: Wire) => { body: Uint8Array | string; contentType: string };
  /** The kinds the answer may be (`Pod`, `Status`). */
  readonly kinds: readonly string[];
  /** What a protobuf answer's decode may leave out. */
  readonly decode?: DecodeOptions;
}

export const collectionRef = (s: Scope, method: HttpMethod, namespace = s.namespace): Ref => ({ method, path: resourcePath(s.type, { namespace }) });

/**
 * The path of one named object (and subresource). A namespaced type needs a
 * namespace here: the client's, else `objectNamespace` (a create's or an
 * update's object); an empty name or namespace is refused before sending.
 */
export function objectRef(s: Scope, method: HttpMethod, name: string, opts: { subresource?: string | undefined; objectNamespace?: string | undefined } = {}): Ref {
  const namespace = s.namespace !== '' ? s.namespace : (opts.objectNamespace ?? '');
  const path = resourcePath(s.type, { namespace, name, ...(opts.subresource === undefined ? {} : { subresource: opts.subresource }) });
  if (name === '') throw new ClientRequestError({ method, path }, 'name', `a ${s.type.kind} needs a name`);
  if (s.type.namespaced && namespace === '') throw new ClientRequestError({ method, path }, 'namespace', `a ${s.type.kind} is namespaced: give the client or the object a namespace`);
  return { method, path };
}

/** Sends `c` in the type's representation (406 → JSON once more) and decodes the answer. */
export async function call(s: Scope, c: Call): Promise<ApiObject> {
  const build = (wire: Wire): TransportRequest => {
    const b = encodeOrRefuse(c, wire);
    return {
      method: c.ref.method,
      path: c.ref.path,
      ...(c.query === undefined || c.query.size === 0 ? {} : { query: c.query }),
      headers: { accept: acceptFor(wire), ...(b === undefined ? {} : { 'content-type': b.contentType }) },
      ...(b === undefined ? {} : { body: b.body }),
      ...(c.signal === undefined ? {} : { signal: c.signal }),
      idempotent: c.idempotent,
      // Events have their own bucket (--event-qps/--event-burst), so a burst of them never starves status writes.
      limiter: s.type.resource === 'events' && s.type.group === '' ? 'events' : 'default',
    };
  };
  const res = await send(s.ctx, s.type, build);
  const obj = decodeBody(s.ctx.codec, c.ref, res, c.decode);
  checkKind(c.ref, 'kind', obj, c.kinds);
  return obj;
}

/** A body the codec cannot encode (a value of the wrong type) is the caller's: ClientRequestError naming the field. */
function encodeOrRefuse(c: Call, wire: Wire): { body: Uint8Array | string; contentType: string } | undefined {
  try {
    return c.body?.(wire);
  } catch (err) {
    if (!isCodecError(err)) throw err;
    throw new ClientRequestError(c.ref, err.field ?? 'body', `cannot encode the object: ${err.message}`);
  }
}

export { metaOf, str };
