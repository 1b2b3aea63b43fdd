// Stores the bootstrap RBAC policy at start, as upstream's RBAC post-start
// hook does, so `kubectl get clusterroles` shows cluster-admin,
// system:node-bootstrapper and the rest. Create-if-missing: an object an
// administrator already changed is left as it is, and several servers over
// one etcd may all run it (AlreadyExists is the expected answer). The
// authorizer also serves the same policy from memory (authz/from-stores.ts),
// so the grants hold before this has run and cannot be lost by editing the
// stored copies — upstream restores them at the next start in the same way.
// Called once by the composition root before the server serves; idempotent.
import { isAlreadyExists } from '../../api/errors.js';
import type { BootstrapBinding, BootstrapRole } from '../authz/bootstrap.js';
import { RBAC_GROUP } from '../authz/rbac-rules.js';
import { requireStore, type Registry } from '../registry/index.js';
import type { ApiObject } from '../registry/types.js';

export async function ensureBootstrapPolicy(registry: Registry, policy: { clusterRoles?: readonly BootstrapRole[]; clusterRoleBindings?: readonly BootstrapBinding[] }): Promise<void> {
  const wanted: Array<[string, readonly object[]]> = [
    ['clusterroles', policy.clusterRoles ?? []],
    ['clusterrolebindings', policy.clusterRoleBindings ?? []],
  ];
  for (const [resource, objects] of wanted) {
    const store = requireStore(registry, { group: RBAC_GROUP, resource });
    for (const obj of objects) {
      await store.create('', obj as unknown as ApiObject).catch((e: unknown) => {
        if (!isAlreadyExists(e)) throw e;
      });
    }
  }
}
