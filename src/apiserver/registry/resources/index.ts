// The served resources: one strategy per resource, in discovery order. The
// resource table (`servedResources`) is derived from these, so discovery and
// routing cannot disagree. A new resource is a strategy file added here.
import type { ResourceInfo, Strategy } from '../types.js';
import { configmaps } from './configmaps.js';
import { events } from './events.js';
import { leases } from './leases.js';
import { namespaces } from './namespaces.js';
import { nodes } from './nodes.js';
import { pods } from './pods.js';
import { secrets } from './secrets.js';
import { serviceaccounts } from './serviceaccounts.js';
import { certificatesigningrequests } from './certificatesigningrequests.js';
import { clustertrustbundles } from './clustertrustbundles.js';
import { RBAC_STRATEGIES } from './rbac.js';

export const BUILTIN_STRATEGIES: readonly Strategy[] = [namespaces, pods, nodes, events, configmaps, secrets, serviceaccounts, leases, certificatesigningrequests, clustertrustbundles, ...RBAC_STRATEGIES];

/** The resource table: what discovery lists, given the feature gates that are on. */
export function servedResources(strategies: readonly Strategy[], gates: Readonly<Record<string, boolean>> = {}): ResourceInfo[] {
  return strategies.map((s) => s.info).filter((r) => r.featureGate === undefined || gates[r.featureGate] === true);
}

export { configmaps, events, leases, namespaces, nodes, pods, secrets, serviceaccounts };
