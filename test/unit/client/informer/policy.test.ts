import { describe, expect, it } from 'vitest';
import { apiErrors } from '../../../../src/api/errors.js';
import { ApiStatusError, ClientConnectionError, ClientProtocolError } from '../../../../src/client/errors.js';
import {
  INITIAL_SYNC_STATE,
  isTooLargeResourceVersion,
  listNeedsConsistentRead,
  listRequest,
  relistResourceVersion,
  watchEnd,
  watchListRequest,
  watchListUnsupported,
  watchRequest,
  watchStartRetriable,
  type SyncState,
} from '../../../../src/client/informer/policy.js';

const REQ = { method: 'GET', path: '/api/v1/pods' };
const status = (e: ReturnType<typeof apiErrors.expired>): ApiStatusError => new ApiStatusError(REQ, e.status(), undefined);
const st = (o: Partial<SyncState>): SyncState => ({ ...INITIAL_SYNC_STATE, ...o });

describe('list options (client-go reflector + pager rules)', () => {
  it.each([
    ['first list: any version, paged 500', st({}), undefined, { resourceVersion: '0', limit: 500 }],
    ['relist at the last version: unpaged (not older than)', st({ lastSyncRv: '42' }), undefined, { resourceVersion: '42' }],
    ['relist after the server paged an RV=0 list: paged (exact)', st({ lastSyncRv: '42', paginatedResult: true }), undefined, { resourceVersion: '42', limit: 500 }],
    ['after 410 / too large: consistent, paged', st({ lastSyncRv: '42', rvUnavailable: true }), undefined, { resourceVersion: '', limit: 500 }],
    ['configured page size always pages', st({ lastSyncRv: '42' }), 7, { resourceVersion: '42', limit: 7 }],
    ['configured page size on the first list', st({}), 3, { resourceVersion: '0', limit: 3 }],
  ])('%s', (_name, s, pageSize, want) => {
    expect(listRequest(s, pageSize, {})).toEqual(want);
  });
  it('relistResourceVersion', () => {
    expect(relistResourceVersion(st({}))).toBe('0');
    expect(relistResourceVersion(st({ lastSyncRv: '9' }))).toBe('9');
    expect(relistResourceVersion(st({ lastSyncRv: '9', rvUnavailable: true }))).toBe('');
  });
  it('passes selectors through', () => {
    expect(listRequest(st({}), undefined, { fieldSelector: 'spec.nodeName=n1', labelSelector: 'a=b' })).toEqual({ resourceVersion: '0', limit: 500, fieldSelector: 'spec.nodeName=n1', labelSelector: 'a=b' });
  });
});

describe('watch options', () => {
  it('resumes from the last version with bookmarks and a timeout in [300, 600)', () => {
    expect(watchRequest('17', 0, {})).toEqual({ resourceVersion: '17', allowWatchBookmarks: true, timeoutSeconds: 300 });
    expect(watchRequest('17', 0.999999, {}).timeoutSeconds).toBe(599);
  });
  it.each([
    ['first streaming list: consistent', st({}), ''],
    ['later: not older than the last version', st({ lastSyncRv: '5' }), '5'],
    ['after a 410: consistent', st({ lastSyncRv: '5', rvUnavailable: true }), ''],
  ])('streaming list, %s', (_n, s, rv) => {
    expect(watchListRequest(s, 0.5, {})).toEqual({ resourceVersion: rv, resourceVersionMatch: 'NotOlderThan', sendInitialEvents: true, allowWatchBookmarks: true, timeoutSeconds: 450 });
  });
});

describe('error classification', () => {
  const expired = status(apiErrors.expired('too old resource version: 1 (5)'));
  const tooLarge = status(apiErrors.tooLargeResourceVersion(1));
  const oldTooLarge = new ApiStatusError(REQ, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 504, reason: 'Timeout', message: 'Timeout: Too large resource version: 9, current: 3' }, undefined);
  const throttled = status(apiErrors.tooManyRequests('slow down', 1));
  const invalid = status(apiErrors.invalid({ group: 'meta.platform.io', kind: 'ListOptions' }, '', [{ type: 'FieldValueForbidden', field: 'sendInitialEvents', detail: 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled' }]));
  const internal = status(apiErrors.internal(new Error('boom')));
  const conn = new ClientConnectionError(REQ, 'ECONNREFUSED');
  const proto = new ClientProtocolError(REQ, 'metadata.resourceVersion', 'missing');
  it.each([
    ['410 Expired', expired, { consistent: true, tooLarge: false, retryWatch: false, unsupported: false }],
    ['504 ResourceVersionTooLarge', tooLarge, { consistent: true, tooLarge: true, retryWatch: false, unsupported: false }],
    ['504 with the old message only', oldTooLarge, { consistent: true, tooLarge: true, retryWatch: false, unsupported: false }],
    ['429', throttled, { consistent: false, tooLarge: false, retryWatch: true, unsupported: false }],
    ['422 Invalid ListOptions', invalid, { consistent: false, tooLarge: false, retryWatch: false, unsupported: true }],
    ['500', internal, { consistent: false, tooLarge: false, retryWatch: false, unsupported: false }],
    ['connection refused', conn, { consistent: false, tooLarge: false, retryWatch: true, unsupported: false }],
    ['protocol error', proto, { consistent: false, tooLarge: false, retryWatch: false, unsupported: false }],
  ])('%s', (_n, e, want) => {
    expect({ consistent: listNeedsConsistentRead(e), tooLarge: isTooLargeResourceVersion(e), retryWatch: watchStartRetriable(e), unsupported: watchListUnsupported(e) }).toEqual(want);
  });
  it.each([
    ['clean end after events', undefined, 10, 3, 'rewatch'],
    ['clean end after a long quiet watch', undefined, 300_000, 0, 'rewatch'],
    ['very short watch with no event', undefined, 999, 0, 'relist'],
    ['short but with events', undefined, 5, 1, 'rewatch'],
    ['410 while watching', expired, 5_000, 4, 'relist'],
    ['429 while watching', throttled, 5_000, 4, 'backoff-rewatch'],
    ['bad event', proto, 5_000, 4, 'relist'],
    ['reset after events', conn, 5_000, 4, 'rewatch'],
    ['reset at once, no event', conn, 5, 0, 'relist'],
  ] as const)('watch end: %s → %s', (_n, err, ms, n, want) => {
    expect(watchEnd(err, ms, n)).toBe(want);
  });
});
