// The default policy the server starts with (a subset of upstream's
// bootstrappolicy): cluster-admin for system:masters, discovery, version and
// health for everyone authenticated, self access reviews, and read access to
// ClusterTrustBundles for every authenticated user and every service account
// (§2.3 rule 8, §5 rule 3), and the node client certificate roles (bound
// only with --csr-signing, as kubeadm binds them: csrSigningBindings). They
// are stored at start (assemble/bootstrap-policy.ts, as upstream's RBAC
// post-start hook does, so they are visible) and also served from memory by
// staticRbacSource beside the stored ones (authz/from-stores.ts).
import type { BindingLike, PolicyRule, RoleLike } from './rbac-rules.js';
import { RBAC_GROUP } from './rbac-rules.js';
import { BOOTSTRAPPERS_GROUP, NODE_CLIENT_SIGNER, NODES_GROUP } from '../../api/signers.js';

const CERTIFICATES = 'certificates.platform.io';
export const NODE_BOOTSTRAPPER_ROLE = 'system:node-bootstrapper';
export const NODE_CLIENT_ROLE = `system:${CERTIFICATES}:certificatesigningrequests:nodeclient`;
export const SELF_NODE_CLIENT_ROLE = `system:${CERTIFICATES}:certificatesigningrequests:selfnodeclient`;

export interface BootstrapRole extends RoleLike {
  apiVersion: string;
  kind: 'ClusterRole';
  metadata: { name: string; labels: Record<string, string>; annotations: Record<string, string> };
  rules: PolicyRule[];
}

export interface BootstrapBinding extends BindingLike {
  apiVersion: string;
  kind: 'ClusterRoleBinding';
  metadata: { name: string; labels: Record<string, string>; annotations: Record<string, string> };
}

const API_VERSION = `${RBAC_GROUP}/v1`;
const META = (name: string): BootstrapRole['metadata'] => ({ name, labels: { 'platform.io/bootstrapping': 'rbac-defaults' }, annotations: { 'rbac.authorization.platform.io/autoupdate': 'true' } });

function role(name: string, rules: PolicyRule[]): BootstrapRole {
  return { apiVersion: API_VERSION, kind: 'ClusterRole', metadata: META(name), rules };
}

function bindGroups(name: string, groups: readonly string[], roleName: string = name): BootstrapBinding {
  return {
    apiVersion: API_VERSION,
    kind: 'ClusterRoleBinding',
    metadata: META(name),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: roleName },
    subjects: groups.map((g) => ({ kind: 'Group', apiGroup: RBAC_GROUP, name: g })),
  };
}

/** Fresh copies on every call: callers may store or mutate them. */
export function bootstrapPolicy(): { clusterRoles: BootstrapRole[]; clusterRoleBindings: BootstrapBinding[] } {
  const clusterRoles = [
    role('cluster-admin', [
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['*'], nonResourceURLs: ['*'] },
    ]),
    role('system:discovery', [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/readyz', '/version', '/version/', '/openapi', '/openapi/*'] }]),
    role('system:public-info-viewer', [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] }]),
    role('system:basic-user', [
      { verbs: ['create'], apiGroups: ['authorization.platform.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
      { verbs: ['create'], apiGroups: ['authentication.platform.io'], resources: ['selfsubjectreviews'] },
    ]),
    role('system:cluster-trust-bundle-reader', [{ verbs: ['get', 'list', 'watch'], apiGroups: ['certificates.platform.io'], resources: ['clustertrustbundles'] }]),
    // Upstream's node bootstrap roles (no bindings by default).
    role(NODE_BOOTSTRAPPER_ROLE, [{ verbs: ['create', 'get', 'list', 'watch'], apiGroups: [CERTIFICATES], resources: ['certificatesigningrequests'] }]),
    role(NODE_CLIENT_ROLE, [{ verbs: ['create'], apiGroups: [CERTIFICATES], resources: ['certificatesigningrequests/nodeclient'] }]),
    role(SELF_NODE_CLIENT_ROLE, [{ verbs: ['create'], apiGroups: [CERTIFICATES], resources: ['certificatesigningrequests/selfnodeclient'] }]),
    role(`system:${CERTIFICATES}:platform-apiserver-client-agent-approver`, [{ verbs: ['approve'], apiGroups: [CERTIFICATES], resources: ['signers'], resourceNames: [NODE_CLIENT_SIGNER] }]),
  ];
  const clusterRoleBindings = [
    bindGroups('cluster-admin', ['system:masters']),
    bindGroups('system:discovery', ['system:authenticated']),
    bindGroups('system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
    bindGroups('system:basic-user', ['system:authenticated']),
    bindGroups('system:cluster-trust-bundle-reader', ['system:authenticated', 'system:serviceaccounts']),
  ];
  return { clusterRoles, clusterRoleBindings };
}

/**
 * What kubeadm binds for node TLS bootstrap (its kubeadm:* bindings,
 * renamed): bootstrap credentials (group system:bootstrappers) may create
 * CSRs that the approver approves, and nodes may renew their own client
 * certificate. Stored at start with --csr-signing=node-client only. Fresh copies.
 */
export function csrSigningBindings(): BootstrapBinding[] {
  return [
    bindGroups('platform-apiserver:agent-bootstrap', [BOOTSTRAPPERS_GROUP], NODE_BOOTSTRAPPER_ROLE),
    bindGroups('platform-apiserver:node-autoapprove-bootstrap', [BOOTSTRAPPERS_GROUP], NODE_CLIENT_ROLE),
    bindGroups('platform-apiserver:node-autoapprove-certificate-rotation', [NODES_GROUP], SELF_NODE_CLIENT_ROLE),
  ];
}
