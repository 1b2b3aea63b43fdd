// Sending one request of a ResourceClient through the Transport in the type's
// current representation, with the 406 fallback of §4.9: a type that refuses
// protobuf is switched to JSON for the client's life and the request is sent
// once more as JSON. A 415 to a protobuf body (the server cannot read it for
// this type) is the same refusal and is treated alike. Called by every verb; may block as long as the
// Transport does (rate limits, retries); rejects as the Transport does.
import type { ApiCodec } from '../../api/codec/index.js';
import { MEDIA_PROTOBUF } from '../../api/media.js';
import { isApiStatusError } from '../errors.js';
import type { ClientLog, ResourceType, Transport, TransportRequest, TransportResponse, TransportStream } from '../types.js';
import type { Representations, Wire } from './representation.js';

/** What every ResourceClient of one RestClient shares. */
export interface RestContext {
  readonly transport: Transport;
  readonly codec: ApiCodec;
  readonly reps: Representations;
  readonly log: ClientLog;
}

async function withFallback<R>(ctx: RestContext, t: ResourceType, build: (wire: Wire) => TransportRequest, go: (req: TransportRequest) => Promise<R>): Promise<R> {
  const wire = ctx.reps.wire(t);
  const req = build(wire);
  try {
    return await go(req);
  } catch (err) {
    const refused = isApiStatusError(err) && (err.code === 406 || (err.code === 415 && req.headers?.['content-type'] === MEDIA_PROTOBUF));
    if (wire !== 'protobuf' || !refused) throw err;
    ctx.reps.fallBack(t, { method: req.method, path: req.path });
    return go(build('json'));
  }
}

export async function send(ctx: RestContext, t: ResourceType, build: (wire: Wire) => TransportRequest): Promise<TransportResponse> {
  return withFallback(ctx, t, build, (req) => ctx.transport.request(req));
}

export async function openStream(ctx: RestContext, t: ResourceType, build: (wire: Wire) => TransportRequest): Promise<TransportStream> {
  return withFallback(ctx, t, build, (req) => ctx.transport.stream(req));
}
