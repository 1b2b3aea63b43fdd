// Watch stream bodies (§4.5, api-wire-notes (a)) → WatchEvents: JSON
// documents split on value boundaries, or length-prefixed protobuf frames.
// One EventReader per stream, fed chunks as they arrive; pure apart from its
// buffer, never blocks. An ERROR event throws its Status as ApiStatusError;
// anything else off-contract throws ClientProtocolError naming the field.
import { WatchFrameDecoder, internJsonStrings, isCodecError, type ApiCodec, type ApiObject, type WatchFrame } from '../../api/codec/index.js';
import { stripManagedFields } from '../meta.js';
import type { Status } from '../../api/errors.js';
import { ApiStatusError, ClientProtocolError, type RequestRef } from '../errors.js';
import type { ResourceType, WatchEvent, WatchEventType } from '../types.js';
import { jsonDocuments } from './json-lines.js';
import { isObject, parseJsonObject } from './representation.js';

/** The largest event accepted, before it is buffered whole (upstream's default is 16 MiB; objects near 1.5 MiB are the norm). */
export const MAX_EVENT_BYTES = 64 * 1024 * 1024;

const TYPES: ReadonlySet<string> = new Set<WatchEventType>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']);

export interface EventReader {
  /** The events completed by `chunk`, in order; decoded as iterated, so an ERROR or a broken event throws after the events before it. */
  push(chunk: Buffer): Iterable<WatchEvent>;
  /** The stream ended: events its last bytes complete without a delimiter (JSON's last line); then `pending` tells whether it was cut. */
  finish(): Iterable<WatchEvent>;
  /** True when the bytes so far end inside an event: a stream that ends now was cut. */
  readonly pending: boolean;
}

/** One decoded `{type, object}` checked against the contract. */
export function toEvent(ref: RequestRef, t: ResourceType, type: unknown, object: unknown): WatchEvent {
  if (typeof type !== 'string') throw new ClientProtocolError(ref, 'type', `watch event without a type`);
  if (!isObject(object)) throw new ClientProtocolError(ref, 'object', `watch event ${type} without an object`);
  if (type === 'ERROR') {
    if (object['kind'] !== 'Status' || typeof object['code'] !== 'number') throw new ClientProtocolError(ref, 'object.kind', `ERROR event whose object is not a Status (kind ${JSON.stringify(object['kind'])})`);
    const status = object as unknown as Status;
    throw new ApiStatusError(ref, status, status.details?.retryAfterSeconds);
  }
  if (!TYPES.has(type)) throw new ClientProtocolError(ref, 'type', `unknown watch event type ${JSON.stringify(type)}`);
  if (object['kind'] !== t.kind) throw new ClientProtocolError(ref, 'object.kind', `${type} event of kind ${JSON.stringify(object['kind'])} in a watch of ${t.kind}`);
  return { type: type as WatchEventType, object };
}

function protocol(ref: RequestRef, field: string, err: unknown): unknown {
  return isCodecError(err) ? new ClientProtocolError(ref, field, err.message, err) : err;
}

/** `omitManagedFields`: each event's object without metadata.managedFields. */
export function jsonEventReader(ref: RequestRef, t: ResourceType, omitManagedFields = false): EventReader {
  const docs = jsonDocuments(MAX_EVENT_BYTES, (d) => parseJsonObject(ref, 'body', d));
  function* events(next: () => unknown[]): Iterable<WatchEvent> {
    let got: unknown[];
    try {
      got = next();
    } catch (err) {
      throw protocol(ref, 'body', err);
    }
    for (const ev of got) {
      if (!isObject(ev)) throw new ClientProtocolError(ref, 'body', `expected a JSON object, got ${Array.isArray(ev) ? 'an array' : typeof ev}`);
      const e = toEvent(ref, t, ev['type'], ev['object']);
      if (omitManagedFields) stripManagedFields(e.object);
      // A watched object usually ends up in a cache: its repeated strings shared, as protobuf's are.
      internJsonStrings(e.object);
      yield e;
    }
  }
  return {
    push: (chunk) => events(() => docs.push(chunk)),
    finish: () => events(() => docs.finish()),
    get pending() {
      return docs.pending;
    },
  };
}

/** `omitManagedFields`: the decode skips metadata.managedFields on the wire. */
export function protobufEventReader(codec: ApiCodec, ref: RequestRef, t: ResourceType, omitManagedFields = false): EventReader {
  const frames = new WatchFrameDecoder({ maxFrameBytes: MAX_EVENT_BYTES });
  const decodeOpts = omitManagedFields ? { omitManagedFields: true } : undefined;
  return {
    *push(chunk) {
      let got: WatchFrame[];
      try {
        got = frames.push(chunk);
      } catch (err) {
        throw protocol(ref, 'body', err);
      }
      for (const f of got) {
        let object: ApiObject;
        try {
          object = codec.decode(f.object, decodeOpts).object;
        } catch (err) {
          throw protocol(ref, 'object', err);
        }
        yield toEvent(ref, t, f.type, object);
      }
    },
    finish: () => [],
    get pending() {
      return frames.pending > 0;
    },
  };
}
