// Rules between and within options that a value kind alone cannot check.
// Pure: no files are read (the files named by options are read when the
// server starts, and their errors name the file). All problems are reported
// together so the operator fixes them at once.
import { isIP } from 'node:net';
import { FlagError, isAgentError } from '../../errors.js';
import { resolveGates, type ApiFeatureGates } from './gates.js';
import type { ApiServerConfig } from './table.js';

export interface Validated {
  readonly problems: readonly FlagError[];
  /** The effective feature gates (defaults when `--feature-gates` had a problem). */
  readonly gates: ApiFeatureGates;
}

const problem = (flag: string, message: string): FlagError => new FlagError(`--${flag}: ${message}`, { flag: `--${flag}` });

/** The controllers --controllers names (all on by default). */
export const KNOWN_CONTROLLERS: readonly string[] = ['root-ca-cert-publisher'];

/** Whether --controllers enables `name` (kube-controller-manager's rule: an explicit name or -name wins over '*'). Pure. */
export function controllerEnabled(controllers: readonly string[], name: string): boolean {
  if (controllers.includes(`-${name}`)) return false;
  return controllers.includes(name) || controllers.includes('*');
}

export function validateConfig(c: ApiServerConfig): Validated {
  const out: FlagError[] = [];
  if (c.bindAddress !== '' && isIP(c.bindAddress) === 0) out.push(problem('bind-address', `"${c.bindAddress}" is not a valid IP address`));
  if (c.securePort < 0 || c.securePort > 65535) out.push(problem('secure-port', `${c.securePort} must be between 1 and 65535, inclusive (0 picks a free port)`));
  if ((c.tlsCertFile === '') !== (c.tlsPrivateKeyFile === '')) {
    out.push(problem(c.tlsCertFile === '' ? 'tls-cert-file' : 'tls-private-key-file', '--tls-cert-file and --tls-private-key-file must be given together'));
  }
  if (c.tlsCertFile === '' && c.certDir === '') out.push(problem('cert-dir', 'must not be empty when --tls-cert-file is not given'));
  if (c.minRequestTimeout < 0) out.push(problem('min-request-timeout', 'can not be negative value'));
  if (c.requestTimeout <= 0) out.push(problem('request-timeout', 'must be greater than 0'));
  if (c.maxResourceWriteBytes < 0) out.push(problem('max-resource-write-bytes', 'can not be negative value'));
  if (c.etcdCompactionInterval <= 0) out.push(problem('etcd-compaction-interval', 'must be greater than 0'));
  if (c.continueTokenLifetime <= 0) out.push(problem('continue-token-lifetime', 'must be greater than 0'));
  if (c.serviceAccountMaxTokenExpiration < 0) out.push(problem('service-account-max-token-expiration', 'can not be negative value'));
  for (const s of c.etcdServers) {
    if (!/^https?:\/\/[^/\s]+\/?$/.test(s)) out.push(problem('etcd-servers', `"${s}" is not of the form scheme://host:port (scheme http or https)`));
  }
  if (c.etcdPrefix === '' || !c.etcdPrefix.startsWith('/')) out.push(problem('etcd-prefix', `"${c.etcdPrefix}" must be an absolute key prefix such as /registry`));
  if (c.serviceAccountSigningKeyFile !== '' && c.serviceAccountIssuer.length === 0) {
    out.push(problem('service-account-issuer', 'is required when --service-account-signing-key-file is given'));
  }
  for (const iss of c.serviceAccountIssuer) {
    if (iss.includes(':') && !/^https:\/\//.test(iss)) out.push(problem('service-account-issuer', `"${iss}": an issuer URL must use the https scheme`));
  }
  if ((c.clusterSigningCertFile === '') !== (c.clusterSigningKeyFile === '')) {
    out.push(problem(c.clusterSigningCertFile === '' ? 'cluster-signing-cert-file' : 'cluster-signing-key-file', '--cluster-signing-cert-file and --cluster-signing-key-file must be given together'));
  }
  if (c.csrSigning !== 'off' && c.tlsCertFile !== '' && c.clusterSigningCertFile === '') {
    out.push(problem('cluster-signing-cert-file', `is required with --csr-signing=${c.csrSigning} when --tls-cert-file is given (there is no generated CA in --cert-dir to sign with)`));
  }
  for (const name of c.controllers) {
    if (name !== '*' && !KNOWN_CONTROLLERS.includes(name.replace(/^-/, ''))) out.push(problem('controllers', `"${name}" is not a known controller (known: ${KNOWN_CONTROLLERS.join(', ')})`));
  }
  if (c.clusterSigningDuration <= 0) out.push(problem('cluster-signing-duration', 'must be greater than 0'));
  let gates: ApiFeatureGates;
  try {
    gates = resolveGates(c.featureGates);
  } catch (e) {
    if (!isAgentError(e)) throw e;
    out.push(e as FlagError);
    gates = resolveGates({});
  }
  return { problems: out, gates };
}
