// LIST of the generic store (§4.6, §4.13): a read at one revision (the latest,
// an exact one, or the first page's, carried in the continue token), paged
// with `limit` where selectors are applied while reading (like etcd3's
// store: it keeps reading until `limit` objects match), `remainingItemCount`
// only without selectors. May block on a future resourceVersion (≤ the
// configured wait). Idempotent.
import { isStorageError, type StoredValue } from '../storage/interface.js';
import { decodeStored, rethrow, type StoreContext } from './context.js';
import { decodeContinue, encodeContinue, expiredContinue, type ContinueToken } from './continue-token.js';
import { apiVersionOf } from './object.js';
import { waitForRevision } from './revision.js';
import { checkSelection, matcher, metadataMatcher, selectionPrefix } from './selection.js';
import type { ApiObject, ListRequest, ObjectList, ReadAt } from './types.js';

interface ReadPlan {
  /** undefined: the latest revision. */
  revision: number | undefined;
  /** The token the request continued, if any. */
  token: ContinueToken | undefined;
}

async function planRead(ctx: StoreContext, readAt: ReadAt): Promise<ReadPlan> {
  switch (readAt.kind) {
    case 'MostRecent':
    case 'Any':
      return { revision: undefined, token: undefined };
    case 'NotOlderThan':
      await waitForRevision(ctx.storage, readAt.rv, ctx.options.futureRevisionWaitMs);
      return { revision: undefined, token: undefined };
    case 'Exact':
      await waitForRevision(ctx.storage, readAt.rv, ctx.options.futureRevisionWaitMs);
      return { revision: readAt.rv, token: undefined };
    case 'Continue': {
      const token = decodeContinue(readAt.token);
      const now = ctx.clock.now();
      if (now - token.issued > ctx.options.continueTtlMs) throw expiredContinue(token, now);
      return { revision: token.rv === -1 ? undefined : token.rv, token };
    }
  }
}

/**
 * One page as stored: the values in key order, read at one revision, with
 * the list's metadata. `decode` gives a value's object (once: the selection
 * may have decoded it already). The handlers assemble protobuf pages from
 * `values` without decoding them.
 */
export interface ListPage {
  metadata: ObjectList['metadata'];
  values: readonly StoredValue[];
  decode(kv: StoredValue): ApiObject;
}

export async function listPage(ctx: StoreContext, namespace: string, req: ListRequest): Promise<ListPage> {
  checkSelection(ctx.strategy, req.selection);
  const { revision, token } = await planRead(ctx, req.readAt);
  const prefix = selectionPrefix(ctx.strategy, namespace, req.selection);
  const match = matcher(ctx.strategy, req.selection);
  const decoded = new Map<string, ApiObject>();
  const decode = (kv: StoredValue): ApiObject => {
    let obj = decoded.get(kv.key);
    if (obj === undefined) {
      obj = decodeStored(ctx, kv);
      decoded.set(kv.key, obj);
    }
    return obj;
  };
  const limit = req.limit !== undefined && req.limit > 0 ? req.limit : undefined;
  let res;
  try {
    res = await ctx.storage.list(prefix, {
      ...(revision === undefined ? {} : { revision }),
      ...(token === undefined ? {} : { startKey: prefix + token.start }),
      ...(limit === undefined ? {} : { limit }),
      ...(match === undefined ? {} : { predicate: selectWith(ctx, req, match, decode) }),
    });
  } catch (e) {
    if (token !== undefined && isStorageError(e, 'Compacted')) throw expiredContinue(token, ctx.clock.now());
    return rethrow(ctx, e, '');
  }
  const metadata: ObjectList['metadata'] = { resourceVersion: String(res.revision) };
  const last = res.items.at(-1);
  if (limit !== undefined && res.more && last !== undefined) {
    const issued = token?.issued ?? ctx.clock.now();
    metadata.continue = encodeContinue({ rv: res.revision, start: `${last.key.slice(prefix.length)}\x00`, issued });
    if (match === undefined && res.remaining !== undefined && res.remaining > 0) metadata.remainingItemCount = res.remaining;
  }
  return { metadata, values: res.items, decode };
}

/** The storage predicate: over metadata alone when the selection allows it (most objects a selective list skips are then never decoded whole). */
function selectWith(ctx: StoreContext, req: ListRequest, match: (obj: ApiObject) => boolean, decode: (kv: StoredValue) => ApiObject): (kv: StoredValue) => boolean {
  const byMeta = metadataMatcher(ctx.strategy, req.selection);
  const { codec } = ctx;
  if (byMeta === undefined || codec.decodeMetadata === undefined) return (kv) => match(decode(kv));
  return (kv) => {
    const meta = codec.decodeMetadata?.(kv.value);
    return meta === undefined ? match(decode(kv)) : byMeta(meta);
  };
}

export async function listObjects(ctx: StoreContext, namespace: string, req: ListRequest): Promise<ObjectList> {
  const page = await listPage(ctx, namespace, req);
  const info = ctx.strategy.info;
  return { apiVersion: apiVersionOf(info), kind: `${info.kind}List`, metadata: page.metadata, items: page.values.map(page.decode) };
}
