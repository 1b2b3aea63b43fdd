// The pod's imagePullSecrets read for a pull (the kubelet's
// getPullSecretsForPod): each secret through the ApiObjectSource; one that
// cannot be read is logged and left out, and the pull goes on with the rest
// and the node's credentials. Called lazily by the image manager, only when a
// pull happens; may block on the API server.
import type { ApiObjectSource, SecretData } from '../api-objects/index.js';
import { pullSecretsKeyring } from '../images/index.js';
import type { Keyring } from '../images/credentials.js';
import type { AgentLogger } from '../log/index.js';
import type { Pod } from '../pod-model/pod-types.js';

export function podPullSecrets(pod: Pod, source: ApiObjectSource, log: AgentLogger, signal: AbortSignal): (() => Promise<Keyring>) | undefined {
  const names = (pod.spec.imagePullSecrets ?? []).map((s) => s.name ?? '').filter((n) => n !== '');
  if (names.length === 0) return undefined;
  return async () => {
    const secrets: SecretData[] = [];
    for (const name of names) {
      try {
        const s = await source.secret(pod.metadata.namespace, name, signal);
        if (s === undefined) throw new Error(`secret "${name}" not found`);
        secrets.push(s);
      } catch (e) {
        if (signal.aborted) throw e;
        log.warn('Unable to retrieve pull secret, the image pull may not succeed.', { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, secret: `${pod.metadata.namespace}/${name}`, err: e });
      }
    }
    return pullSecretsKeyring(secrets);
  };
}
