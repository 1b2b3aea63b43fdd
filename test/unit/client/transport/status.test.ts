import { beforeAll, describe, expect, it } from 'vitest';
import { loadApiCodec, type ApiCodec } from '../../../../src/api/codec/index.js';
import { apiErrors, isGone, isNotFound } from '../../../../src/api/errors.js';
import { ApiStatusError } from '../../../../src/client/errors.js';
import { genericStatus, statusError } from '../../../../src/client/transport/status.js';

const REQ = { method: 'GET', path: '/api/v1/namespaces/a/pods/p' };
const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));
const res = (status: number, body: Buffer, headers: Record<string, string> = { 'content-type': 'application/json' }) => ({ status, headers, body });

describe('statusError', () => {
  let codec: ApiCodec;
  beforeAll(async () => {
    codec = await loadApiCodec();
  });

  it('a JSON Status keeps code, reason, message, details and names the request', () => {
    const e = statusError(REQ, res(404, json(apiErrors.notFound({ group: '', resource: 'pods' }, 'p').status())));
    expect(e).toBeInstanceOf(ApiStatusError);
    expect({ code: e.code, reason: e.reason, message: e.message, request: e.request, retry: e.retryAfterSeconds }).toEqual({ code: 404, reason: 'NotFound', message: 'pods "p" not found', request: REQ, retry: undefined });
    expect(e.details).toEqual({ name: 'p', group: '', kind: 'pods' });
    expect(isNotFound(e)).toBe(true);
  });

  it('a protobuf Status is decoded with the codec', () => {
    const s = apiErrors.expired('The resourceVersion for the provided list is too old.', { continue: 'tok' }).status();
    const body = codec.encode(s as unknown as Record<string, unknown>, { apiVersion: 'v1', kind: 'Status' });
    const e = statusError(REQ, res(410, body, { 'content-type': 'application/vnd.platform.protobuf' }), (b) => codec.decode(b).object);
    expect({ code: e.code, reason: e.reason, message: e.message }).toEqual({ code: 410, reason: 'Expired', message: 'The resourceVersion for the provided list is too old.' });
    expect(e.listMeta.continue).toBe('tok');
    expect(isGone(e)).toBe(true);
  });

  it('Retry-After: the header, else details.retryAfterSeconds', () => {
    const s = apiErrors.tooManyRequests('slow down', 7).status();
    expect(statusError(REQ, res(429, json(s))).retryAfterSeconds).toBe(7);
    expect(statusError(REQ, res(429, json(s), { 'content-type': 'application/json', 'retry-after': '2' })).retryAfterSeconds).toBe(2);
    const tooLarge = statusError(REQ, res(504, json(apiErrors.tooLargeResourceVersion(1).status()), { 'content-type': 'application/json', 'retry-after': '1' }));
    expect({ code: tooLarge.code, reason: tooLarge.reason, retry: tooLarge.retryAfterSeconds, cause: tooLarge.details?.causes?.[0]?.reason }).toEqual({ code: 504, reason: 'Timeout', retry: 1, cause: 'ResourceVersionTooLarge' });
    expect(tooLarge.message).toContain('Too large resource version');
  });

  it('a Status without a code takes the HTTP one', () => {
    expect(statusError(REQ, res(409, json({ kind: 'Status', reason: 'Conflict', message: 'x' }))).code).toBe(409);
  });

  it.each<[string, number, Buffer, Record<string, string>, string, string]>([
    ['HTML 404', 404, Buffer.from('<html>nope</html>'), { 'content-type': 'text/html' }, 'NotFound', 'the server could not find the requested resource'],
    ['empty 401', 401, Buffer.alloc(0), {}, 'Unauthorized', 'the server has asked for the client to provide credentials'],
    ['text 403 keeps the text', 403, Buffer.from('forbidden: user x\n'), { 'content-type': 'text/plain' }, 'Forbidden', 'forbidden: user x'],
    ['JSON that is not a Status', 500, json({ kind: 'Pod' }), { 'content-type': 'application/json' }, 'InternalError', 'an error on the server ("unknown") has prevented the request from succeeding'],
    ['truncated JSON', 503, Buffer.from('{"kind":"Sta'), { 'content-type': 'application/json' }, 'ServiceUnavailable', 'the server is currently unable to handle the request'],
    ['garbage protobuf', 504, Buffer.from([0x6b, 0x38, 0x73, 0x00, 0xff, 0xff]), { 'content-type': 'application/vnd.platform.protobuf' }, 'Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request'],
    ['protobuf without the magic', 400, Buffer.from('hello'), { 'content-type': 'application/vnd.platform.protobuf' }, 'BadRequest', 'the server rejected our request for an unknown reason'],
    ['429 text', 429, Buffer.from('busy'), { 'content-type': 'text/plain', 'retry-after': '3' }, 'TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
    ['410 HTML', 410, Buffer.from('<p>'), { 'content-type': 'text/html' }, 'Unknown', 'the server responded with the status code 410 but did not return more information'],
    ['502 text', 502, Buffer.from('bad gateway'), { 'content-type': 'text/plain' }, 'InternalError', 'an error on the server ("bad gateway") has prevented the request from succeeding'],
  ])('a body that is not a Status (%s) gives client-go\'s wording', (_n, code, body, headers, reason, message) => {
    const e = statusError(REQ, res(code, body, headers), (b) => codec.decode(b).object);
    expect({ code: e.code, reason: e.reason, message: e.message }).toEqual({ code, reason, message });
    expect(e.details?.causes?.[0]?.reason).toBe('UnexpectedServerResponse');
  });

  it('keeps Retry-After of a made-up error', () => {
    expect(statusError(REQ, res(429, Buffer.from('x'), { 'content-type': 'text/plain', 'retry-after': '3' })).retryAfterSeconds).toBe(3);
  });

  it('a protobuf Status without a decoder is still an error, never a crash', () => {
    const body = codec.encode(apiErrors.notFound({ group: '', resource: 'pods' }, 'p').status() as unknown as Record<string, unknown>, { apiVersion: 'v1', kind: 'Status' });
    expect(statusError(REQ, res(404, body, { 'content-type': 'application/vnd.platform.protobuf' })).reason).toBe('NotFound');
  });

  it('genericStatus covers 406 and 415 with the server text', () => {
    expect(genericStatus(406, 'unknown').message).toBe('the server was unable to respond with a content type that the client supports');
    expect(genericStatus(415, 'only json').message).toBe('only json');
    expect(genericStatus(422, '').reason).toBe('Invalid');
  });
});
