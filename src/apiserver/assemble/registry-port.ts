// The registry as the verb handlers see it (handlers/ports.ts): a lookup by
// group, version and resource, the action subresources (pods/binding,
// pods/eviction), the discovery documents and the default Table.
import { ApiError } from '../../api/errors.js';
import type { RegistryPort, ResourceEntry, SubresourceAction, VirtualResource } from '../handlers/ports.js';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, buildTable, type Registry } from '../registry/index.js';
import type { ApiObject, ResourceInfo } from '../registry/types.js';

const POLICY_V1 = { group: 'policy', version: 'v1' };

/** Extra action subresources served beside the registry's own (service-account tokens, CSR approval...). */
export type ActionTable = Readonly<Record<string, Readonly<Record<string, SubresourceAction>>>>;

function podActions(registry: Registry): Record<string, SubresourceAction> {
  return {
    binding: {
      bodyKind: { group: '', version: 'v1', kind: 'Binding' },
      create: async (ns, name, body, opts) => ({ status: 201, object: await registry.bindPod(ns, name, body, { dryRun: opts.dryRun }) }),
    },
    eviction: {
      bodyKind: { ...POLICY_V1, kind: 'Eviction' },
      create: async (ns, name, body, opts) => ({ status: 201, object: await registry.evictPod(ns, name, body, { dryRun: opts.dryRun }) }),
    },
  };
}

const keyOf = (group: string, resource: string): string => `${resource}.${group}`;

export function registryPort(registry: Registry, extraActions: ActionTable = {}, virtual: readonly VirtualResource[] = [], serverAddress = ''): RegistryPort {
  const entries = new Map<string, ResourceEntry>();
  const builtIn: Record<string, Record<string, SubresourceAction>> = { [keyOf('', 'pods')]: podActions(registry) };
  const byVersion = new Map<string, ResourceInfo>();
  for (const info of registry.resources) byVersion.set(`${info.group}/${info.version}/${info.resource}`, info);
  const lookup = (group: string, version: string, resource: string): ResourceEntry | undefined => {
    const info = byVersion.get(`${group}/${version}/${resource}`);
    if (info === undefined) return undefined;
    const k = keyOf(group, resource);
    let entry = entries.get(k);
    if (entry === undefined) {
      const store = registry.store({ group, resource });
      if (store === undefined) return undefined;
      entry = { info, store, actions: { ...(builtIn[k] ?? {}), ...(extraActions[k] ?? {}) } };
      entries.set(k, entry);
    }
    return entry;
  };
  const servedVirtual = new Set(registry.resources.map((r) => `${r.group}/${r.version}/${r.resource}`));
  return {
    lookup,
    virtual: (group, version, resource) => (servedVirtual.has(`${group}/${version}/${resource}`) ? virtual.find((v) => v.info.group === group && v.info.version === version && v.info.resource === resource) : undefined),
    discovery(path) {
      const parts = path.split('/').filter((p) => p !== '');
      if (parts[0] === 'api') {
        if (parts.length === 1) return apiVersions(serverAddress);
        if (parts.length === 2 && parts[1] === 'v1') return apiResourceList(registry.resources, '', 'v1');
        return undefined;
      }
      if (parts[0] === 'apis') {
        if (parts.length === 1) return apiGroupList(registry.resources);
        if (parts.length === 2) return apiGroup(registry.resources, parts[1]!);
        if (parts.length === 3) return apiResourceList(registry.resources, parts[1]!, parts[2]!);
      }
      return undefined;
    },
    toTable(_entry, items, listMeta, includeObject) {
      if (listMeta === undefined) {
        const one = items[0];
        if (one === undefined) throw new ApiError(500, 'InternalError', 'no object to convert');
        return buildTable(one, includeObject);
      }
      return buildTable({ apiVersion: '', kind: '', metadata: listMeta, items: items as ApiObject[] }, includeObject);
    },
  };
}
