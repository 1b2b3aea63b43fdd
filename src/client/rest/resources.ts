// The resource types the agent talks to, and the URL of each (§4.1). Pure
// data and string building; called by every verb before it sends anything.
import type { ResourceType } from '../types.js';

const core = (resource: string, kind: string, namespaced: boolean): ResourceType => ({ group: '', version: 'v1', resource, kind, namespaced });

/** The types the agent reads and writes, by the name its code uses for them. */
export const RESOURCES = {
  pods: core('pods', 'Pod', true),
  nodes: core('nodes', 'Node', false),
  namespaces: core('namespaces', 'Namespace', false),
  events: core('events', 'Event', true),
  configMaps: core('configmaps', 'ConfigMap', true),
  secrets: core('secrets', 'Secret', true),
  serviceAccounts: core('serviceaccounts', 'ServiceAccount', true),
  leases: { group: 'coordination.platform.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true },
  certificateSigningRequests: { group: 'certificates.platform.io', version: 'v1', resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest', namespaced: false },
  clusterTrustBundles: { group: 'certificates.platform.io', version: 'v1alpha1', resource: 'clustertrustbundles', kind: 'ClusterTrustBundle', namespaced: false },
  // The node server's webhooks (issue 18): create-only review types.
  tokenReviews: { group: 'authentication.platform.io', version: 'v1', resource: 'tokenreviews', kind: 'TokenReview', namespaced: false },
  subjectAccessReviews: { group: 'authorization.platform.io', version: 'v1', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false },
} as const satisfies Record<string, ResourceType>;

/** `v1`, `coordination.platform.io/v1`: what `apiVersion` says for the type. */
export const apiVersionOf = (t: ResourceType): string => (t.group === '' ? t.version : `${t.group}/${t.version}`);

/** A stable key of a type within one client (the 406 fallback remembers types by it). */
export const typeKey = (t: ResourceType): string => `${t.group}/${t.version}/${t.resource}`;

export interface PathParts {
  /** '' for cluster-scoped types and for lists across all namespaces. */
  readonly namespace: string;
  /** '' for the collection. */
  readonly name?: string;
  readonly subresource?: string;
}

/**
 * `/api/v1[/namespaces/{ns}]/{resource}[/{name}[/{subresource}]]` or the
 * `/apis/{group}/{version}/...` form; namespace and name URI-escaped. The
 * namespace segment is left out for cluster-scoped types whatever is given.
 */
export function resourcePath(t: ResourceType, p: PathParts): string {
  const root = t.group === '' ? `/api/${t.version}` : `/apis/${t.group}/${t.version}`;
  const ns = t.namespaced && p.namespace !== '' ? `/namespaces/${encodeURIComponent(p.namespace)}` : '';
  let path = `${root}${ns}/${t.resource}`;
  if (p.name !== undefined && p.name !== '') {
    path += `/${encodeURIComponent(p.name)}`;
    if (p.subresource !== undefined && p.subresource !== '') path += `/${encodeURIComponent(p.subresource)}`;
  }
  return path;
}
