// Opening a watch (§4.5) and iterating it. The stream goes through the
// Transport's `stream` with limiter 'none' (watches are never rate limited).
// Iteration ends cleanly when the server ends the stream (its timeout) or
// after close(); it throws the ERROR event's Status, a ClientProtocolError,
// the Transport's ClientConnectionError, or the caller's signal's reason.
// One consumer per stream; close() is idempotent and releases the
// connection whether or not iteration started.
import { MEDIA_JSON, MEDIA_PROTOBUF, mediaTypeOf } from '../../api/media.js';
import { ClientProtocolError, type RequestRef } from '../errors.js';
import type { ResourceType, TransportStream, WatchEvent, WatchOptions, WatchStream } from '../types.js';
import { watchQuery } from './query.js';
import { acceptFor } from './representation.js';
import { resourcePath } from './resources.js';
import { openStream, type RestContext } from './send.js';
import { jsonEventReader, protobufEventReader, type EventReader } from './watch-events.js';

export async function openWatch(ctx: RestContext, t: ResourceType, namespace: string, opts: WatchOptions): Promise<WatchStream> {
  const path = resourcePath(t, { namespace });
  const ref: RequestRef = { method: 'GET', path };
  const query = watchQuery(ref, opts);
  const stream = await openStream(ctx, t, (wire) => ({
    method: 'GET',
    path,
    query,
    headers: { accept: acceptFor(wire) },
    limiter: 'none',
    idempotent: true,
    ...(opts.signal === undefined ? {} : { signal: opts.signal }),
  }));
  const ct = stream.headers['content-type'];
  const mt = mediaTypeOf(Array.isArray(ct) ? (ct[0] ?? '') : (ct ?? ''));
  if (mt !== MEDIA_PROTOBUF && mt !== MEDIA_JSON && mt !== '') {
    stream.close();
    throw new ClientProtocolError(ref, 'content-type', `unexpected watch media type ${JSON.stringify(mt)}`);
  }
  const omit = opts.omitManagedFields === true;
  const reader = mt === MEDIA_PROTOBUF ? protobufEventReader(ctx.codec, ref, t, omit) : jsonEventReader(ref, t, omit);
  return new RestWatch(stream, reader, ref, opts.signal);
}

class RestWatch implements WatchStream {
  private closed = false;
  private started = false;
  private readonly onAbort = (): void => this.close();

  constructor(
    private readonly stream: TransportStream,
    private readonly reader: EventReader,
    private readonly ref: RequestRef,
    private readonly signal: AbortSignal | undefined,
  ) {
    signal?.addEventListener('abort', this.onAbort, { once: true });
    if (signal?.aborted === true) this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.signal?.removeEventListener('abort', this.onAbort);
    this.stream.close();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    if (this.started) throw new Error(`${this.ref.method} ${this.ref.path}: a watch stream is iterated once`);
    this.started = true;
    return this.events();
  }

  private async *events(): AsyncGenerator<WatchEvent> {
    try {
      for await (const chunk of this.stream.body) {
        if (this.closed) break;
        for (const ev of this.reader.push(chunk)) {
          yield ev;
          if (this.closed) break;
        }
        if (this.closed) break;
      }
      if (!this.closed) {
        for (const ev of this.reader.finish()) {
          yield ev;
          if (this.closed) break;
        }
      }
      if (!this.closed && this.reader.pending) throw new ClientProtocolError(this.ref, 'body', 'the stream ended inside an event');
    } catch (err) {
      // A close from our side (or the caller's abort) can surface as the body's abort error: that is not the server's failure.
      if (this.signal?.aborted === true) throw this.signal.reason;
      if (!this.closed) throw err;
    } finally {
      this.close();
    }
    if (this.signal?.aborted === true) throw this.signal.reason;
  }
}
