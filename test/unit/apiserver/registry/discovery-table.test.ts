import { describe, expect, it } from 'vitest';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, buildTable, parseIncludeObject, BUILTIN_STRATEGIES } from '../../../../src/apiserver/registry/index.js';
import { servedResources } from '../../../../src/apiserver/registry/resources/index.js';
import type { ApiObject, ObjectList } from '../../../../src/apiserver/registry/types.js';

const resources = servedResources(BUILTIN_STRATEGIES);

describe('discovery documents', () => {
  it('/api lists v1', () => {
    expect(apiVersions('127.0.0.1:6443')).toEqual({ kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1:6443' }] });
  });

  it('/apis lists the named groups with their preferred version; /apis/<g> one of them', () => {
    const gv = { groupVersion: 'coordination.platform.io/v1', version: 'v1' };
    const list = apiGroupList(resources);
    expect(list.kind).toBe('APIGroupList');
    // Gated groups (certificates.platform.io/v1alpha1 without ClusterTrustBundle) are left out; the rest in table order.
    expect(list.groups.map((g) => g.name)).toEqual(['coordination.platform.io', 'certificates.platform.io', 'rbac.authorization.platform.io']);
    expect(list.groups[0]).toEqual({ name: 'coordination.platform.io', versions: [gv], preferredVersion: gv });
    expect(list.groups[1]!.versions.map((v) => v.version)).toEqual(['v1']);
    expect(apiGroup(resources, 'coordination.platform.io')?.kind).toBe('APIGroup');
    expect(apiGroup(resources, 'nope')).toBeUndefined();
  });

  it('/api/v1 lists every core resource and subresource with verbs, short names and scope', () => {
    const list = apiResourceList(resources, '', 'v1');
    expect(list?.groupVersion).toBe('v1');
    const byName = new Map(list?.resources.map((r) => [r.name, r]));
    expect(byName.get('pods')).toEqual({ name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['po'], categories: ['all'] });
    expect(byName.get('pods/status')).toEqual({ name: 'pods/status', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get', 'patch', 'update'] });
    expect(byName.get('pods/eviction')).toMatchObject({ group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
    expect(byName.get('namespaces')?.namespaced).toBe(false);
    expect([...byName.keys()]).toEqual(expect.arrayContaining(['nodes', 'nodes/status', 'events', 'configmaps', 'secrets', 'serviceaccounts', 'pods/binding', 'namespaces/finalize']));
    expect(apiResourceList(resources, 'coordination.platform.io', 'v1')?.resources.map((r) => r.name)).toEqual(['leases']);
    expect(apiResourceList(resources, 'coordination.platform.io', 'v2')).toBeUndefined();
  });

  it('gated resources are served only with their gate', () => {
    const gated = [{ ...BUILTIN_STRATEGIES[0]!, info: { ...BUILTIN_STRATEGIES[0]!.info, resource: 'things', featureGate: 'Things' } }];
    expect(servedResources(gated)).toEqual([]);
    expect(servedResources(gated, { Things: true })).toHaveLength(1);
  });
});

describe('Table', () => {
  const obj: ApiObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', creationTimestamp: '2026-01-01T00:00:00Z', resourceVersion: '7' }, data: {} };
  const list: ObjectList = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '9', continue: 'tok' }, items: [obj] };

  it('two default columns; rows with PartialObjectMetadata by default', () => {
    const t = buildTable(list);
    expect(t.kind).toBe('Table');
    expect(t.apiVersion).toBe('meta.platform.io/v1');
    expect(t.metadata).toEqual({ resourceVersion: '9', continue: 'tok' });
    expect(t.columnDefinitions.map((c) => [c.name, c.type])).toEqual([['Name', 'string'], ['Created At', 'date']]);
    expect(t.rows).toEqual([{ cells: ['a', '2026-01-01T00:00:00Z'], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.platform.io/v1', metadata: obj.metadata } }]);
  });

  it('includeObject None and Object; one object gives one row', () => {
    expect(buildTable(list, 'None').rows).toEqual([{ cells: ['a', '2026-01-01T00:00:00Z'] }]);
    expect(buildTable(obj, 'Object')).toMatchObject({ metadata: { resourceVersion: '7' }, rows: [{ object: obj }] });
  });

  it('parses includeObject; a bad value is 400', () => {
    expect(parseIncludeObject(undefined)).toBe('Metadata');
    expect(parseIncludeObject('Object')).toBe('Object');
    expect(() => parseIncludeObject('All')).toThrow('Unable to convert to Table as requested: includeObject: Unsupported value: "All": supported values: "Metadata", "None", "Object"');
  });
});

describe('registry extension points', () => {
  it('virtual resources are listed in discovery (gated like the others) without a store', async () => {
    const { createRegistry, jsonStorageCodec } = await import('../../../../src/apiserver/registry/index.js');
    const { createMemoryStorage } = await import('../../../../src/apiserver/storage/memory.js');
    const storage = createMemoryStorage();
    const reviews = { group: 'authentication.platform.io', version: 'v1', resource: 'tokenreviews', kind: 'TokenReview', singular: 'tokenreview', namespaced: false, verbs: ['create'] };
    const gated = { ...reviews, resource: 'gatedreviews', featureGate: 'Gated' };
    const registry = createRegistry({ storage, codec: jsonStorageCodec, virtualResources: [reviews, gated] });
    expect(apiResourceList(registry.resources, 'authentication.platform.io', 'v1')?.resources.map((r) => r.name)).toEqual(['tokenreviews']);
    expect(registry.store({ group: 'authentication.platform.io', resource: 'tokenreviews' })).toBeUndefined();
    await storage.close();
  });
});
