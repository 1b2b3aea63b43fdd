import { beforeAll, describe, expect, it } from 'vitest';
import { encodeWatchFrame, loadApiCodec, type ApiCodec } from '../../../../src/api/codec/index.js';
import { apiErrors } from '../../../../src/api/errors.js';
import { MEDIA_JSON, MEDIA_PROTOBUF } from '../../../../src/api/media.js';
import { ApiStatusError, ClientProtocolError } from '../../../../src/client/errors.js';
import { MAX_EVENT_BYTES, RESOURCES, createRestClient } from '../../../../src/client/rest/index.js';
import { fakeTransport, memoryLog, pod, statusError, type Answer } from './fake-transport.js';
import { drain } from '../../../helpers/watch-drain.js';

let codec: ApiCodec;
beforeAll(async () => {
  codec = await loadApiCodec();
});

const PROTO_STREAM = `${MEDIA_PROTOBUF};stream=watch`;
const jsonEvent = (type: string, object: unknown): string => `${JSON.stringify({ type, object })}\n`;
const frame = (type: string, object: Record<string, unknown>): Buffer => encodeWatchFrame(type, codec.encode(object));
const expired = apiErrors.expired('too old resource version: 1 (10)').status();

function open(answer: Answer, contentType: typeof MEDIA_JSON | typeof MEDIA_PROTOBUF = MEDIA_JSON) {
  const transport = fakeTransport(() => answer);
  const pods = createRestClient({ transport, codec, contentType, log: memoryLog() }).resource(RESOURCES.pods, 'ns1');
  return { transport, pods };
}


/** Splits bytes into chunks of `n` so events straddle chunk boundaries. */
const chop = (b: Buffer, n: number): Buffer[] => Array.from({ length: Math.ceil(b.length / n) }, (_, i) => b.subarray(i * n, (i + 1) * n));

describe('watch (§4.5)', () => {
  it('JSON: the request, and events split across chunks; a clean end ends the iteration', async () => {
    const body = Buffer.from(jsonEvent('ADDED', pod('a')) + jsonEvent('MODIFIED', pod('a')) + jsonEvent('BOOKMARK', { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '12' } }) + jsonEvent('DELETED', pod('a')));
    const { transport, pods } = open({ stream: chop(body, 7), contentType: MEDIA_JSON });
    const w = await pods.watch({ resourceVersion: '5', allowWatchBookmarks: true, timeoutSeconds: 60 });
    const { events, error } = await drain(w);
    expect(error).toBeUndefined();
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'BOOKMARK', 'DELETED']);
    const req = transport.requests[0]!;
    expect(req).toMatchObject({ method: 'GET', path: '/api/v1/namespaces/ns1/pods', limiter: 'none', idempotent: true, headers: { accept: MEDIA_JSON } });
    expect(req.query?.toString()).toBe('watch=true&resourceVersion=5&allowWatchBookmarks=true&timeoutSeconds=60');
    expect(transport.streamsClosed).toBe(1);
  });

  it('protobuf: length-prefixed frames, Accept protobuf then JSON', async () => {
    const body = Buffer.concat([frame('ADDED', pod('a')), frame('MODIFIED', pod('b'))]);
    const { transport, pods } = open({ stream: chop(body, 5), contentType: PROTO_STREAM }, MEDIA_PROTOBUF);
    const { events, error } = await drain(await pods.watch({}));
    expect(error).toBeUndefined();
    expect(events.map((e) => [e.type, (e.object['metadata'] as { name: string }).name, e.object['kind']])).toEqual([
      ['ADDED', 'a', 'Pod'],
      ['MODIFIED', 'b', 'Pod'],
    ]);
    expect(transport.requests[0]!.headers).toEqual({ accept: `${MEDIA_PROTOBUF}, ${MEDIA_JSON}` });
  });

  it.each([
    ['JSON', MEDIA_JSON, () => [Buffer.from(jsonEvent('ADDED', pod('a')) + jsonEvent('ERROR', expired))]],
    ['protobuf', PROTO_STREAM, () => [Buffer.concat([frame('ADDED', pod('a')), frame('ERROR', expired as unknown as Record<string, unknown>)])]],
  ])('%s: an ERROR event ends the iteration with its Status (410 Expired) after the events before it', async (_w, ct, chunks) => {
    const { pods } = open({ stream: chunks(), contentType: ct });
    const { events, error } = await drain(await pods.watch({ resourceVersion: '1' }));
    expect(events).toHaveLength(1);
    expect(error).toBeInstanceOf(ApiStatusError);
    expect(error).toMatchObject({ code: 410, reason: 'Expired', request: { path: '/api/v1/namespaces/ns1/pods' } });
  });

  it.each([
    ['an unknown event type', MEDIA_JSON, () => [Buffer.from(jsonEvent('RENAMED', pod('a')))], 'type'],
    ['an object of another kind', MEDIA_JSON, () => [Buffer.from(jsonEvent('ADDED', { kind: 'Node', metadata: { name: 'n' } }))], 'object.kind'],
    ['an event without an object', MEDIA_JSON, () => [Buffer.from('{"type":"ADDED"}')], 'object'],
    ['garbage', MEDIA_JSON, () => [Buffer.from('<html>oops</html>')], 'body'],
    ['a stream cut inside an event', MEDIA_JSON, () => [Buffer.from('{"type":"ADDED","object":{"kind":"Po')], 'body'],
    ['protobuf: an oversized frame, refused from its header', PROTO_STREAM, () => [Buffer.from([0x04, 0x00, 0x00, 0x01, 0x0a])], 'body'],
    ['protobuf: a garbled object', PROTO_STREAM, () => [encodeWatchFrame('ADDED', Buffer.from('k8s\u0000\u00ff\u00ff'))], 'object'],
    ['protobuf: a frame cut short', PROTO_STREAM, () => [frame('ADDED', pod('a')).subarray(0, 30)], 'body'],
    ['protobuf: an object of another kind', PROTO_STREAM, () => [frame('ADDED', { kind: 'Node', apiVersion: 'v1', metadata: { name: 'n' } })], 'object.kind'],
  ])('%s → ClientProtocolError on %s', async (_w, ct, chunks, field) => {
    const { pods, transport } = open({ stream: chunks(), contentType: ct });
    const { error } = await drain(await pods.watch({}));
    expect(error).toBeInstanceOf(ClientProtocolError);
    expect(error).toMatchObject({ field });
    expect(transport.streamsClosed).toBe(1);
  });

  it('a stream of another media type is refused and released', async () => {
    const { pods, transport } = open({ stream: [Buffer.from('<html>')], contentType: 'text/html' });
    await expect(pods.watch({})).rejects.toMatchObject({ name: 'ClientProtocolError', field: 'content-type' });
    expect(transport.streamsClosed).toBe(1);
  });

  it('the oversize cap is 64 MiB', () => {
    expect(MAX_EVENT_BYTES).toBe(64 * 1024 * 1024);
    expect(0x04000001).toBeGreaterThan(MAX_EVENT_BYTES);
  });

  it('close() ends the iteration from our side, cleanly, and releases the stream', async () => {
    const body = [Buffer.from(jsonEvent('ADDED', pod('a'))), Buffer.from(jsonEvent('ADDED', pod('b'))), Buffer.from(jsonEvent('ADDED', pod('c')))];
    const { pods, transport } = open({ stream: body, contentType: MEDIA_JSON });
    const w = await pods.watch({});
    const seen: string[] = [];
    for await (const e of w) {
      seen.push((e.object['metadata'] as { name: string }).name);
      w.close();
    }
    expect(seen).toEqual(['a']);
    expect(transport.streamsClosed).toBe(1);
    w.close();
  });

  it('the caller’s abort ends it with the signal’s reason', async () => {
    const ac = new AbortController();
    const { pods } = open({ stream: [Buffer.from(jsonEvent('ADDED', pod('a'))), Buffer.from(jsonEvent('ADDED', pod('b')))], contentType: MEDIA_JSON });
    const w = await pods.watch({ signal: ac.signal });
    const reason = new Error('stopping');
    let n = 0;
    const err = await (async () => {
      for await (const _e of w) {
        n++;
        ac.abort(reason);
      }
    })().then(() => undefined, (e: unknown) => e);
    expect(n).toBe(1);
    expect(err).toBe(reason);
  });

  it('a 406 on opening falls back to JSON', async () => {
    let calls = 0;
    const transport = fakeTransport((req) => (calls++ === 0 ? statusError(req, apiErrors.notAcceptable([MEDIA_JSON])) : { stream: [Buffer.from(jsonEvent('ADDED', pod('a')))], contentType: MEDIA_JSON }));
    const pods = createRestClient({ transport, codec, contentType: MEDIA_PROTOBUF, log: memoryLog() }).resource(RESOURCES.pods, 'ns1');
    const { events } = await drain(await pods.watch({}));
    expect(events).toHaveLength(1);
    expect(transport.requests.map((r) => r.headers?.['accept'])).toEqual([`${MEDIA_PROTOBUF}, ${MEDIA_JSON}`, MEDIA_JSON]);
  });

  it('invalid watch options never leave the client', async () => {
    const { pods, transport } = open({ stream: [], contentType: MEDIA_JSON });
    await expect(pods.watch({ resourceVersion: '3', resourceVersionMatch: 'NotOlderThan' })).rejects.toMatchObject({ code: 422 });
    expect(transport.requests).toHaveLength(0);
  });
});
