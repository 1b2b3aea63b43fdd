// Which message type serves each (apiVersion, kind): every served kind and its
// List, plus the meta kinds the server writes (Status, discovery documents,
// DeleteOptions). The one table the codec consults to find a schema; pure data.

import type { TypeMeta } from './envelope.js';

const CORE = 'platform.io.api.core.v1';
const META = 'platform.io.apimachinery.pkg.apis.meta.v1';

export interface KindEntry {
  readonly apiVersion: string;
  readonly kind: string;
  /** Full protobuf message name, without the leading dot. */
  readonly message: string;
}

function group(apiVersion: string, pkg: string, kinds: readonly string[], lists: boolean): KindEntry[] {
  const out: KindEntry[] = [];
  for (const kind of kinds) {
    out.push({ apiVersion, kind, message: `${pkg}.${kind}` });
    if (lists) out.push({ apiVersion, kind: `${kind}List`, message: `${pkg}.${kind}List` });
  }
  return out;
}

export const SERVED_KINDS: readonly KindEntry[] = [
  ...group('v1', CORE, ['Pod', 'Node', 'Namespace', 'Event', 'ConfigMap', 'Secret', 'ServiceAccount'], true),
  ...group('v1', CORE, ['Binding'], false),
  ...group('policy/v1', 'platform.io.api.policy.v1', ['Eviction'], false),
  ...group('coordination.platform.io/v1', 'platform.io.api.coordination.v1', ['Lease'], true),
  ...group('certificates.platform.io/v1', 'platform.io.api.certificates.v1', ['CertificateSigningRequest'], true),
  ...group('certificates.platform.io/v1alpha1', 'platform.io.api.certificates.v1alpha1', ['ClusterTrustBundle'], true),
  ...group('authentication.platform.io/v1', 'platform.io.api.authentication.v1', ['TokenRequest', 'TokenReview'], false),
  ...group('authorization.platform.io/v1', 'platform.io.api.authorization.v1', ['SubjectAccessReview', 'SelfSubjectAccessReview', 'LocalSubjectAccessReview'], false),
  ...group('rbac.authorization.platform.io/v1', 'platform.io.api.rbac.v1', ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'], true),
  ...group('v1', META, ['Status', 'APIVersions', 'APIGroupList', 'APIGroup', 'APIResourceList'], false),
  ...group('meta.platform.io/v1', META, ['Status'], false),
  // Clients send a DELETE's body in the resource's own group version (upstream registers DeleteOptions in each).
  ...['v1', 'meta.platform.io/v1', 'policy/v1', 'coordination.platform.io/v1', 'certificates.platform.io/v1', 'certificates.platform.io/v1alpha1', 'authentication.platform.io/v1', 'authorization.platform.io/v1', 'rbac.authorization.platform.io/v1'].map(
    (apiVersion): KindEntry => ({ apiVersion, kind: 'DeleteOptions', message: `${META}.DeleteOptions` }),
  ),
];

export function kindKey(tm: TypeMeta): string {
  return `${tm.apiVersion}\u0000${tm.kind}`;
}
