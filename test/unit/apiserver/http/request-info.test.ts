import { describe, expect, it } from 'vitest';
import { nameFromFieldSelector, requestInfoFor } from '../../../../src/apiserver/http/request-info.js';

const info = (method: string, pathAndQuery: string) => requestInfoFor(method, new URL(pathAndQuery, 'https://h'));

// [method, path, verb, prefix, group, version, namespace, resource, subresource, name, parts]
type Row = [string, string, string, string, string, string, string, string, string, string, string[]];

describe('requestInfoFor: resource requests', () => {
  it.each<Row>([
    ['GET', '/api/v1/namespaces', 'list', 'api', '', 'v1', '', 'namespaces', '', '', ['namespaces']],
    ['GET', '/api/v1/namespaces/other', 'get', 'api', '', 'v1', 'other', 'namespaces', '', 'other', ['namespaces', 'other']],
    ['PUT', '/api/v1/namespaces/other/finalize', 'update', 'api', '', 'v1', 'other', 'namespaces', 'finalize', 'other', ['namespaces', 'other', 'finalize']],
    ['GET', '/api/v1/namespaces/other/status', 'get', 'api', '', 'v1', 'other', 'namespaces', 'status', 'other', ['namespaces', 'other', 'status']],
    ['DELETE', '/api/v1/namespaces/other', 'delete', 'api', '', 'v1', 'other', 'namespaces', '', 'other', ['namespaces', 'other']],
    ['GET', '/api/v1/namespaces/other/pods', 'list', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
    ['GET', '/api/v1/namespaces/other/pods/foo', 'get', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
    ['HEAD', '/api/v1/namespaces/other/pods/foo', 'get', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
    ['GET', '/api/v1/pods', 'list', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
    ['GET', '/api/v1/namespaces/other/pods/foo/status', 'get', 'api', '', 'v1', 'other', 'pods', 'status', 'foo', ['pods', 'foo', 'status']],
    ['PATCH', '/api/v1/namespaces/other/pods/foo/status', 'patch', 'api', '', 'v1', 'other', 'pods', 'status', 'foo', ['pods', 'foo', 'status']],
    ['POST', '/api/v1/namespaces/other/pods/foo/eviction', 'create', 'api', '', 'v1', 'other', 'pods', 'eviction', 'foo', ['pods', 'foo', 'eviction']],
    ['POST', '/api/v1/namespaces/other/serviceaccounts/default/token', 'create', 'api', '', 'v1', 'other', 'serviceaccounts', 'token', 'default', ['serviceaccounts', 'default', 'token']],
    ['GET', '/api/v1/namespaces/other/pods/foo/proxy/subpath', 'get', 'api', '', 'v1', 'other', 'pods', 'proxy', 'foo', ['pods', 'foo', 'proxy', 'subpath']],
    ['POST', '/api/v1/namespaces/other/pods', 'create', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
    ['PUT', '/api/v1/namespaces/other/pods/foo', 'update', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
    ['DELETE', '/api/v1/namespaces/other/pods/foo', 'delete', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
    ['DELETE', '/api/v1/namespaces/other/pods', 'deletecollection', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
    ['GET', '/api/v1/nodes/n1', 'get', 'api', '', 'v1', '', 'nodes', '', 'n1', ['nodes', 'n1']],
    ['PATCH', '/api/v1/nodes/n1/status', 'patch', 'api', '', 'v1', '', 'nodes', 'status', 'n1', ['nodes', 'n1', 'status']],
    ['GET', '/apis/coordination.platform.io/v1/namespaces/platform-node-lease/leases/n1', 'get', 'apis', 'coordination.platform.io', 'v1', 'platform-node-lease', 'leases', '', 'n1', ['leases', 'n1']],
    ['GET', '/apis/certificates.platform.io/v1alpha1/clustertrustbundles', 'list', 'apis', 'certificates.platform.io', 'v1alpha1', '', 'clustertrustbundles', '', '', ['clustertrustbundles']],
    ['PUT', '/apis/certificates.platform.io/v1/certificatesigningrequests/csr-1/approval', 'update', 'apis', 'certificates.platform.io', 'v1', '', 'certificatesigningrequests', 'approval', 'csr-1', ['certificatesigningrequests', 'csr-1', 'approval']],
    ['GET', '/apis/rbac.authorization.platform.io/v1/clusterroles/', 'list', 'apis', 'rbac.authorization.platform.io', 'v1', '', 'clusterroles', '', '', ['clusterroles']],
    ['GET', '/api/v1/watch/namespaces/other/pods', 'watch', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
    ['GET', '/api/v1/proxy/namespaces/other/pods/foo/a/b', 'proxy', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo', 'a', 'b']],
    ['OPTIONS', '/api/v1/pods/foo', '', 'api', '', 'v1', '', 'pods', '', 'foo', ['pods', 'foo']],
  ])('%s %s', (method, path, verb, apiPrefix, apiGroup, apiVersion, namespace, resource, subresource, name, parts) => {
    expect(info(method, path)).toEqual({ isResourceRequest: true, path: path, verb, apiPrefix, apiGroup, apiVersion, namespace, resource, subresource, name, parts });
  });
});

describe('requestInfoFor: list or watch from the query', () => {
  it.each([
    ['/api/v1/pods?watch=1', 'watch'],
    ['/api/v1/pods?watch=true', 'watch'],
    ['/api/v1/pods?watch=True', 'watch'],
    ['/api/v1/pods?watch=false', 'list'],
    ['/api/v1/pods?watch=0', 'list'],
    ['/api/v1/pods', 'list'],
    ['/api/v1/namespaces/ns/pods?watch=1&resourceVersion=5', 'watch'],
  ])('GET %s → %s', (path, verb) => {
    expect(info('GET', path).verb).toBe(verb);
  });
  it('a list or watch by fieldSelector metadata.name names the object', () => {
    expect(info('GET', '/api/v1/namespaces/ns/secrets?watch=1&fieldSelector=metadata.name%3Ds1').name).toBe('s1');
    expect(info('GET', '/api/v1/nodes?fieldSelector=metadata.name%3D%3Dn1').name).toBe('n1');
    expect(info('GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dn1').name).toBe('');
  });
  it.each<[string | null, string]>([
    [null, ''],
    ['metadata.name=a', 'a'],
    ['metadata.name==a', 'a'],
    ['spec.nodeName=n,metadata.name=a', 'a'],
    ['metadata.name!=a', ''],
    ['metadata.name=..', ''],
    ['metadata.name=a/b', ''],
  ])('nameFromFieldSelector(%j)', (sel, want) => {
    expect(nameFromFieldSelector(sel)).toBe(want);
  });
});

describe('requestInfoFor: non-resource paths', () => {
  it.each([
    ['GET', '/', 'get'],
    ['GET', '/healthz', 'get'],
    ['GET', '/version', 'get'],
    ['GET', '/api', 'get'],
    ['GET', '/api/v1', 'get'],
    ['GET', '/apis', 'get'],
    ['GET', '/apis/coordination.platform.io', 'get'],
    ['GET', '/apis/coordination.platform.io/v1', 'get'],
    ['POST', '/other/a/b/c', 'post'],
    ['PUT', '/metrics', 'put'],
  ])('%s %s', (method, path, verb) => {
    expect(info(method, path)).toEqual({ isResourceRequest: false, path, verb, apiPrefix: '', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '', parts: [] });
  });
  it('a special verb with nothing after it is a 500, as upstream', () => {
    expect(() => info('GET', '/api/v1/watch')).toThrow(/unable to determine kind and namespace from url/);
  });
});
