// Discovery documents generated from the served-resources table: `/api`
// (APIVersions), `/apis` (APIGroupList), `/apis/<group>` (APIGroup),
// `/api/v1` and `/apis/<group>/<version>` (APIResourceList). Pure: the HTTP
// layer picks the document for a path and encodes it.
import type { ResourceInfo } from './types.js';

export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

export interface ApiGroup {
  kind?: 'APIGroup';
  apiVersion?: 'v1';
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

export interface ApiResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
}

export interface ApiResourceList {
  kind: 'APIResourceList';
  apiVersion: 'v1';
  groupVersion: string;
  resources: ApiResource[];
}

/** `/api`: the core group's versions, and where clients reach the server. */
export function apiVersions(serverAddress: string): { kind: 'APIVersions'; versions: string[]; serverAddressByClientCIDRs: Array<{ clientCIDR: string; serverAddress: string }> } {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

/** The named groups in first-seen order, each with its versions (the first listed is preferred). */
function groups(resources: readonly ResourceInfo[]): ApiGroup[] {
  const byName = new Map<string, ApiGroup>();
  for (const r of resources) {
    if (r.group === '') continue;
    const gv = { groupVersion: `${r.group}/${r.version}`, version: r.version };
    const g = byName.get(r.group);
    if (g === undefined) byName.set(r.group, { name: r.group, versions: [gv], preferredVersion: gv });
    else if (!g.versions.some((v) => v.version === r.version)) g.versions.push(gv);
  }
  return [...byName.values()];
}

/** `/apis`. */
export function apiGroupList(resources: readonly ResourceInfo[]): { kind: 'APIGroupList'; apiVersion: 'v1'; groups: ApiGroup[] } {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups(resources) };
}

/** `/apis/<group>`; undefined when the group is not served (404). */
export function apiGroup(resources: readonly ResourceInfo[], group: string): ApiGroup | undefined {
  const g = groups(resources).find((x) => x.name === group);
  return g === undefined ? undefined : { kind: 'APIGroup', apiVersion: 'v1', ...g };
}

/** `/api/v1` (group '') or `/apis/<group>/<version>`; undefined when nothing is served there (404). */
export function apiResourceList(resources: readonly ResourceInfo[], group: string, version: string): ApiResourceList | undefined {
  const served = resources.filter((r) => r.group === group && r.version === version);
  if (served.length === 0) return undefined;
  const out: ApiResource[] = [];
  for (const r of served) {
    out.push({
      name: r.resource,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: [...r.verbs],
      ...(r.shortNames === undefined ? {} : { shortNames: [...r.shortNames] }),
      ...(r.categories === undefined ? {} : { categories: [...r.categories] }),
    });
    for (const s of r.subresources ?? []) {
      out.push({
        name: `${r.resource}/${s.name}`,
        singularName: '',
        namespaced: r.namespaced,
        ...(s.group === undefined ? {} : { group: s.group }),
        ...(s.version === undefined ? {} : { version: s.version }),
        kind: s.kind,
        verbs: [...s.verbs],
      });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group === '' ? version : `${group}/${version}`, resources: out };
}
