// The platformconfig a bootstrapped node writes at --platformconfig: the
// bootstrap config's server and trust, and the client certificate and key
// both read from the `-current` symlink in --cert-dir (so a rotation needs
// no rewrite). The names of the cluster, user and context are the kubelet's
// (default-cluster, default-auth, default-context). Pure.
import { stringify } from 'yaml';
import type { ConnectionConfig } from '../client/types.js';

export function nodePlatformConfig(bootstrap: Pick<ConnectionConfig, 'server' | 'ca' | 'insecureSkipTlsVerify' | 'tlsServerName'>, pairPath: string): string {
  const cluster: Record<string, unknown> = { server: bootstrap.server };
  if (bootstrap.ca !== undefined) cluster['certificate-authority-data'] = Buffer.from(bootstrap.ca).toString('base64');
  if (bootstrap.insecureSkipTlsVerify) cluster['insecure-skip-tls-verify'] = true;
  if (bootstrap.tlsServerName !== undefined) cluster['tls-server-name'] = bootstrap.tlsServerName;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'default-cluster', cluster }],
    users: [{ name: 'default-auth', user: { 'client-certificate': pairPath, 'client-key': pairPath } }],
    contexts: [{ name: 'default-context', context: { cluster: 'default-cluster', namespace: 'default', user: 'default-auth' } }],
    'current-context': 'default-context',
    preferences: {},
  });
}
