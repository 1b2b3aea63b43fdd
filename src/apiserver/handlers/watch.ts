// GET with `watch`: the change stream of spec §4.5 — 200 with chunked JSON
// documents (or length-prefixed protobuf frames), one per event, for as long
// as `timeoutSeconds` (else a random time in [min, 2×min) of
// --min-request-timeout, as kube-apiserver) or until the client leaves or the
// server stops. A stream that ends on the server's side (timeout, shutdown)
// ends with a BOOKMARK at the last version sent when the client allows
// bookmarks, so it resumes from there without a relist.
import { randomInt } from 'node:crypto';
import { MEDIA_PROTOBUF } from '../../api/media.js';
import { RecentCache } from '../../util/recent-cache.js';
import { classifyWatch } from '../../api/resource-version.js';
import type { Status } from '../../api/errors.js';
import type { ApiObject, WatchStart } from '../registry/types.js';
import type { RequestContext } from './context.js';
import { listQuery, selectionOf } from './read.js';
import { STATUS_GVK } from './respond.js';

export async function handleWatch(ctx: RequestContext): Promise<void> {
  const q = listQuery(ctx);
  const semantic = classifyWatch(q, ctx.deps.gates.watchList);
  const selection = selectionOf(q.labelSelector, q.fieldSelector);
  const { store } = ctx.entry;
  const namespace = ctx.info.namespace;
  // "sendInitialEvents=false" without a version starts at the current one, without synthetic events.
  const start: WatchStart =
    semantic.kind === 'StartCurrent' ? { kind: 'StartExact', rv: Number((await store.list(namespace, { readAt: { kind: 'MostRecent' }, limit: 1 })).metadata.resourceVersion) } : semantic;
  const min = ctx.deps.minRequestTimeoutSeconds;
  const timeoutSeconds = q.timeoutSeconds !== undefined && q.timeoutSeconds > 0 ? q.timeoutSeconds : min + randomInt(Math.max(1, min));
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), timeoutSeconds * 1000);
  const onGone = (): void => stop.abort();
  ctx.req.signal.addEventListener('abort', onGone, { once: true });
  const dropped = ctx.deps.faults?.watchSignal();
  dropped?.addEventListener('abort', onGone, { once: true });
  try {
    // Throws before anything is written (410 for a start older than the history, 504 for one too new): a plain Status answer.
    const events = await store.watch(namespace, { start, signal: stop.signal, allowWatchBookmarks: q.allowWatchBookmarks, ...(selection === undefined ? {} : { selection }) });
    const choice = ctx.answer.choice!;
    ctx.res.writeHead(200, { 'content-type': choice.contentType, 'cache-control': 'no-cache, private', 'transfer-encoding': 'chunked' });
    ctx.res.flushHeaders();
    let lastRv = start.kind === 'StartExact' ? String(start.rv) : undefined;
    for await (const ev of events) {
      if (ev.type !== 'ERROR') lastRv = ev.object.metadata.resourceVersion ?? lastRv;
      await write(ctx, ev.type, ev.object, stop.signal);
      if (ctx.res.destroyed) break;
    }
    flush(ctx.res);
    // Dropped by fault injection: the connection breaks, as a network fault would break it.
    if (dropped?.aborted === true) {
      ctx.res.destroy();
      return;
    }
    // Ended by the timeout or the server's stop (not the client): leave the client a place to resume from.
    if (!ctx.res.destroyed && q.allowWatchBookmarks && lastRv !== undefined) {
      await write(ctx, 'BOOKMARK', { apiVersion: apiVersionOf(ctx), kind: ctx.gvk.kind, metadata: { resourceVersion: lastRv } }, stop.signal);
    }
    flush(ctx.res);
    // Returns once the end is handed to the OS: a stopping server closes every connection as soon as its handlers return.
    // A response whose client already left has emitted 'close' once and will not finish: do not wait for it.
    if (!ctx.res.destroyed && !ctx.res.closed) {
      await new Promise<void>((resolve) => {
        ctx.res.once('close', resolve);
        ctx.res.end(resolve);
      });
    }
  } finally {
    flush(ctx.res);
    clearTimeout(timer);
    ctx.req.signal.removeEventListener('abort', onGone);
    dropped?.removeEventListener('abort', onGone);
  }
}

const apiVersionOf = (ctx: RequestContext): string => (ctx.gvk.group === '' ? ctx.gvk.version : `${ctx.gvk.group}/${ctx.gvk.version}`);

/** Encoded events, shared by the watchers that send the same event object (see the registry's translate): one Buffer per (event, media type) written to every stream. */
const jsonLines = new RecentCache<object, Map<string, Buffer>>();
const protoFrames = new RecentCache<object, Map<string, Buffer>>();

function encode(ctx: RequestContext, type: string, object: ApiObject | Status): Buffer {
  if (ctx.answer.choice?.mediaType === MEDIA_PROTOBUF) {
    const byType = protoFrames.get(object, () => new Map());
    let frame = byType.get(type);
    if (frame === undefined) byType.set(type, (frame = ctx.deps.wire.encodeWatchFrame(type, object, type === 'ERROR' ? STATUS_GVK : ctx.gvk)));
    return frame;
  }
  const byType = jsonLines.get(object, () => new Map());
  let line = byType.get(type);
  if (line === undefined) byType.set(type, (line = Buffer.from(`${JSON.stringify({ type, object })}\n`)));
  return line;
}

/**
 * Bytes a stream may hold unsent before its watch stops reading events (the
 * events then queue in the resource's fan-out, which ends a watcher too far
 * behind): enough for a burst of changes, bounded per client.
 */
const STREAM_HIGH_WATER_BYTES = 1024 * 1024;

/** Streams corked until the next turn of the event loop: the events of one turn leave as one chunk and one TLS write. */
const corked = new Map<RequestContext['res'], NodeJS.Immediate>();

function flush(res: RequestContext['res']): void {
  const pending = corked.get(res);
  if (pending === undefined) return;
  clearImmediate(pending);
  corked.delete(res);
  res.uncork();
}

/** Writes one event; waits only while the client's stream holds more than STREAM_HIGH_WATER_BYTES, so a slow watcher holds back only its own stream. */
async function write(ctx: RequestContext, type: string, object: ApiObject | Status, stop: AbortSignal): Promise<void> {
  const { res } = ctx;
  if (res.destroyed) return;
  const chunk = encode(ctx, type, object);
  if (!corked.has(res)) {
    res.cork();
    corked.set(res, setImmediate(() => flush(res)));
  }
  res.write(chunk);
  if (res.writableLength <= STREAM_HIGH_WATER_BYTES || res.destroyed || stop.aborted) return;
  flush(res);
  // Also stops waiting when the watch ends (timeout, server stop): a client that stopped reading must not hold the handler past them.
  await new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      stop.removeEventListener('abort', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
    stop.addEventListener('abort', done, { once: true });
  });
}
