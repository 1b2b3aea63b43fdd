// A pod's imagePullSecrets as a keyring (the kubelet's MakeDockerKeyring):
// `platform.io/dockerconfigjson` secrets give their `.dockerconfigjson`
// (`{"auths": {...}}`), `platform.io/dockercfg` secrets their `.dockercfg`
// (`{registry: {...}}`); other types, and content that does not parse, give
// nothing. The pod's keyring is tried before the node's (credentials.ts), as
// the kubelet's union keyring does. `pullSecretsKeyring` is pure; the
// secrets are read by the caller (src/pods, through the ApiObjectSource).
import type { SecretData } from '../api-objects/index.js';
import { registryKey, type DockerAuthEntry, type Keyring } from './credentials.js';

export const DOCKER_CONFIG_JSON_TYPE = 'platform.io/dockerconfigjson';
export const DOCKERCFG_TYPE = 'platform.io/dockercfg';

function entriesOf(secret: SecretData): Record<string, unknown> | undefined {
  const key = secret.type === DOCKER_CONFIG_JSON_TYPE ? '.dockerconfigjson' : secret.type === DOCKERCFG_TYPE ? '.dockercfg' : undefined;
  const raw = key === undefined ? undefined : secret.data[key];
  if (raw === undefined || raw.length === 0) return undefined;
  try {
    const json = JSON.parse(Buffer.from(raw).toString('utf8')) as unknown;
    const auths = secret.type === DOCKER_CONFIG_JSON_TYPE && json !== null && typeof json === 'object' ? (json as Record<string, unknown>)['auths'] : json;
    return auths !== null && typeof auths === 'object' && !Array.isArray(auths) ? (auths as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The registries and credentials of the pod's pull secrets; an earlier secret wins a registry key. Pure. */
export function pullSecretsKeyring(secrets: readonly SecretData[]): Keyring {
  const out = new Map<string, DockerAuthEntry>();
  for (const s of secrets) {
    for (const [k, v] of Object.entries(entriesOf(s) ?? {})) {
      const key = registryKey(k);
      if (v !== null && typeof v === 'object' && !out.has(key)) out.set(key, v as DockerAuthEntry);
    }
  }
  return out;
}
