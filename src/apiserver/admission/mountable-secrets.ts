// §2.2 rule 1: an account annotated `platform.io/enforce-mountable-secrets:
// "true"` limits its pods to the secrets in its `secrets` list (volumes,
// projected sources, env, envFrom of every container kind) and to its own
// imagePullSecrets. Messages as upstream's limitSecretReferences. Pure.
import { secretUses } from '../authz/pod-references.js';
import type { SecretUse } from '../authz/pod-references.js';
import { ENFORCE_MOUNTABLE_SECRETS_ANNOTATION, arr } from './pod-shape.js';
import type { AccountLike, PodLike } from './pod-shape.js';

function refused(u: SecretUse, account: string): string {
  const tail = `is not allowed because service account ${account} does not reference that secret`;
  switch (u.via) {
    case 'volume':
      return `volume with secret.secretName="${u.name}" ${tail}`;
    case 'projected':
      return `projected volume with secret.name="${u.name}" ${tail}`;
    case 'env':
      return `${u.initContainer ? 'init container' : 'container'} ${u.container} with envVar ${u.envVar} referencing secret.secretName="${u.name}" ${tail}`;
    case 'envFrom':
      return `${u.initContainer ? 'init container' : 'container'} ${u.container} with envFrom referencing secret.secretName="${u.name}" ${tail}`;
    case 'imagePullSecret':
      return `imagePullSecrets[${u.index}].name="${u.name}" is not allowed because service account ${account} does not reference that imagePullSecret`;
  }
}

export const enforcesMountableSecrets = (account: AccountLike): boolean => account.metadata?.annotations?.[ENFORCE_MOUNTABLE_SECRETS_ANNOTATION] === 'true';

/** The first secret use the account does not allow (the 403's reason), or undefined. */
export function checkMountableSecrets(pod: PodLike, account: AccountLike): string | undefined {
  if (!enforcesMountableSecrets(account)) return undefined;
  const mountable = new Set(arr(account.secrets).map((s) => s.name));
  const pullable = new Set(arr(account.imagePullSecrets).map((s) => s.name));
  const name = account.metadata?.name ?? '';
  for (const u of secretUses(pod)) {
    const allowed = u.via === 'imagePullSecret' ? pullable.has(u.name) : mountable.has(u.name);
    if (!allowed) return refused(u, name);
  }
  return undefined;
}
