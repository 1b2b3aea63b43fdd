import { describe, expect, it } from 'vitest';
import { PATCH_APPLY, PATCH_MERGE } from '../../../../src/api/media.js';
import { ApiStatusError } from '../../../../src/client/errors.js';
import { deleteBody, deleteIsGuarded, listQuery, watchQuery, writeQuery } from '../../../../src/client/rest/query.js';
import { RESOURCES, resourcePath } from '../../../../src/client/rest/resources.js';
import type { ListOptions, WatchOptions } from '../../../../src/client/types.js';

const ref = { method: 'GET', path: '/api/v1/pods' };

describe('resourcePath', () => {
  it.each([
    ['core namespaced collection', RESOURCES.pods, { namespace: 'ns1' }, '/api/v1/namespaces/ns1/pods'],
    ['core all namespaces', RESOURCES.pods, { namespace: '' }, '/api/v1/pods'],
    ['core object + subresource', RESOURCES.pods, { namespace: 'a', name: 'p', subresource: 'status' }, '/api/v1/namespaces/a/pods/p/status'],
    ['cluster-scoped ignores a namespace', RESOURCES.nodes, { namespace: 'x', name: 'n1' }, '/api/v1/nodes/n1'],
    ['namespaces themselves', RESOURCES.namespaces, { namespace: '', name: 'default' }, '/api/v1/namespaces/default'],
    ['named group namespaced', RESOURCES.leases, { namespace: 'platform-node-lease', name: 'node1' }, '/apis/coordination.platform.io/v1/namespaces/platform-node-lease/leases/node1'],
    ['named group cluster', RESOURCES.clusterTrustBundles, { namespace: '', name: 'b' }, '/apis/certificates.platform.io/v1alpha1/clustertrustbundles/b'],
    ['escaped segments', RESOURCES.configMaps, { namespace: 'a b', name: 'x/y?z' }, '/api/v1/namespaces/a%20b/configmaps/x%2Fy%3Fz'],
    ['subresource without a name is dropped', RESOURCES.pods, { namespace: 'a', subresource: 'status' }, '/api/v1/namespaces/a/pods'],
  ])('%s', (_what, t, parts, want) => {
    expect(resourcePath(t, parts)).toBe(want);
  });
});

describe('listQuery (§4.13: never sends an Invalid combination)', () => {
  it.each<[string, ListOptions, string]>([
    ['nothing', {}, ''],
    ['rv 0 with limit', { resourceVersion: '0', limit: 500 }, 'resourceVersion=0&limit=500'],
    ['exact', { resourceVersion: '10', resourceVersionMatch: 'Exact' }, 'resourceVersion=10&resourceVersionMatch=Exact'],
    ['not older than 0', { resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' }, 'resourceVersion=0&resourceVersionMatch=NotOlderThan'],
    ['selectors', { labelSelector: 'a=b', fieldSelector: 'spec.nodeName=n1' }, 'labelSelector=a%3Db&fieldSelector=spec.nodeName%3Dn1'],
    ['continue', { limit: 2, continue: 'tok' }, 'limit=2&continue=tok'],
    ['continue with rv 0: the 0 is left out (same meaning)', { resourceVersion: '0', limit: 2, continue: 'tok' }, 'limit=2&continue=tok'],
    ['empty rv means unset', { resourceVersion: '' }, ''],
    ['limit 0 means no paging', { limit: 0 }, ''],
  ])('%s', (_w, o, want) => {
    expect(listQuery(ref, o).toString()).toBe(want);
  });

  it.each<[string, ListOptions, number, RegExp]>([
    ['match without rv', { resourceVersionMatch: 'NotOlderThan' }, 422, /resourceVersionMatch is forbidden unless resourceVersion is provided/],
    ['exact with rv 0', { resourceVersion: '0', resourceVersionMatch: 'Exact' }, 422, /"exact" is forbidden for resourceVersion "0"/],
    ['match with continue', { resourceVersion: '5', resourceVersionMatch: 'Exact', continue: 't' }, 422, /forbidden when continue is provided/],
    ['rv with continue', { resourceVersion: '5', limit: 1, continue: 't' }, 400, /specifying resource version is not allowed when using continue/],
    ['negative limit', { limit: -1 }, 422, /limit/],
  ])('%s → the server’s error, locally', (_w, o, code, msg) => {
    let err: unknown;
    try {
      listQuery(ref, o);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiStatusError);
    expect((err as ApiStatusError).code).toBe(code);
    expect((err as ApiStatusError).message).toMatch(msg);
    expect((err as ApiStatusError).request).toEqual(ref);
  });
});

describe('watchQuery', () => {
  it.each<[string, WatchOptions, string]>([
    ['from a version', { resourceVersion: '7', allowWatchBookmarks: true, timeoutSeconds: 30 }, 'watch=true&resourceVersion=7&allowWatchBookmarks=true&timeoutSeconds=30'],
    ['streaming list', { resourceVersion: '', resourceVersionMatch: 'NotOlderThan', sendInitialEvents: true, allowWatchBookmarks: true }, 'watch=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&sendInitialEvents=true'],
    ['selector', { fieldSelector: 'metadata.name=x' }, 'watch=true&fieldSelector=metadata.name%3Dx'],
  ])('%s', (_w, o, want) => {
    expect(watchQuery(ref, o).toString()).toBe(want);
  });

  it.each<[string, WatchOptions, RegExp]>([
    ['match without sendInitialEvents', { resourceVersion: '1', resourceVersionMatch: 'NotOlderThan' }, /forbidden for watch unless sendInitialEvents is provided/],
    ['sendInitialEvents without match', { sendInitialEvents: true }, /requires setting resourceVersionMatch to NotOlderThan/],
  ])('%s → 422 locally', (_w, o, msg) => {
    expect(() => watchQuery(ref, o)).toThrow(msg);
  });
});

describe('writeQuery and DeleteOptions', () => {
  it('dryRun=All, fieldManager, fieldValidation; force only for apply', () => {
    expect(writeQuery(ref, { dryRun: true, fieldManager: 'agent', fieldValidation: 'Strict' }).toString()).toBe('dryRun=All&fieldManager=agent&fieldValidation=Strict');
    expect(writeQuery(ref, { fieldManager: 'agent', force: true }, PATCH_APPLY).toString()).toBe('fieldManager=agent&force=true');
  });
  it('apply without fieldManager and force on a merge patch are refused before sending', () => {
    expect(() => writeQuery(ref, {}, PATCH_APPLY)).toThrow(/fieldManager: Required value: is required for apply patch/);
    expect(() => writeQuery(ref, { force: true }, PATCH_MERGE)).toThrow(/force: Forbidden: may not be specified for non-apply patch/);
  });
  it('DeleteOptions body, and which deletes a repeat cannot harm', () => {
    expect(deleteBody('v1', {})).toBeUndefined();
    expect(JSON.parse(deleteBody('coordination.platform.io/v1', { gracePeriodSeconds: 0, propagationPolicy: 'Background', preconditions: { uid: 'u1' }, dryRun: true }) ?? '')).toEqual({
      kind: 'DeleteOptions',
      apiVersion: 'coordination.platform.io/v1',
      gracePeriodSeconds: 0,
      propagationPolicy: 'Background',
      preconditions: { uid: 'u1' },
      dryRun: ['All'],
    });
    expect(deleteIsGuarded({ preconditions: { resourceVersion: '3' } })).toBe(true);
    expect(deleteIsGuarded({ gracePeriodSeconds: 0 })).toBe(false);
  });
});
