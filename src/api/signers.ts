// Names of the node certificate flows (client and serving), shared by the server's CSR
// signer and approver (src/apiserver/controllers/) and the agent's bootstrap
// client. Upstream's `kubernetes.io/kube-apiserver-client-kubelet` is renamed
// mechanically (kubernetes.io → platform.io, kube-apiserver →
// platform-apiserver, kubelet → agent); the node identities are not renamed.
// Pure constants and string rules.

/** The signer of node client certificates (upstream kubernetes.io/kube-apiserver-client-kubelet). */
export const NODE_CLIENT_SIGNER = 'platform.io/platform-apiserver-client-agent';

/** Name prefix of a node's client CSR (the rest is a digest of its key and subject, so a restart finds the same CSR). */
export const NODE_CSR_PREFIX = 'node-csr-';

export const NODE_USER_PREFIX = 'system:node:';
export const NODES_GROUP = 'system:nodes';
/** The group bootstrap credentials are in: allowed to create node client CSRs that are approved. */
export const BOOTSTRAPPERS_GROUP = 'system:bootstrappers';

/** The usages a node requests (RSA keys; digital signature and client auth alone for other keys). */
export const NODE_CLIENT_USAGES: readonly string[] = ['digital signature', 'key encipherment', 'client auth'];
/** The other usage set upstream accepts for a node client certificate (keys that cannot encipher). */
export const NODE_CLIENT_USAGES_NO_RSA: readonly string[] = ['digital signature', 'client auth'];

/** The certificate subject a node asks for: CN system:node:<name>, O [system:nodes]. */
export function nodeClientSubject(nodeName: string): { commonName: string; organizations: readonly string[] } {
  return { commonName: `${NODE_USER_PREFIX}${nodeName}`, organizations: [NODES_GROUP] };
}

/** The node name of a `system:node:<name>` user or common name; undefined for anything else. */
export function nodeNameOf(userOrCommonName: string): string | undefined {
  return userOrCommonName.startsWith(NODE_USER_PREFIX) ? userOrCommonName.slice(NODE_USER_PREFIX.length) : undefined;
}

/**
 * The signer of the agent's serving certificate for port 10250 (upstream
 * kubernetes.io/kubelet-serving, renamed kubelet → agent). Never
 * auto-approved: an administrator (or an approver of their own) approves.
 */
export const AGENT_SERVING_SIGNER = 'platform.io/agent-serving';
/** Name prefix of the agent's serving CSR (upstream's are generated `csr-<random>`; the rest is a digest here too). */
export const AGENT_SERVING_CSR_PREFIX = 'csr-';
/** The usages an agent serving request carries with an RSA key... */
export const AGENT_SERVING_USAGES: readonly string[] = ['digital signature', 'key encipherment', 'server auth'];
/** ...and with any other key (ECDSA cannot encipher). */
export const AGENT_SERVING_USAGES_NO_RSA: readonly string[] = ['digital signature', 'server auth'];
