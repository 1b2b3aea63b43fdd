// A pod's QoS class (the API's v1qos helper): pure, from its containers'
// requests and limits. The status reports it; the container configuration
// derives OOM scores and cgroup settings from it.
import { parseQuantity } from '../config/values/quantity.js';
import type { Pod } from './pod-types.js';

export type QosClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

/** The pod's QoS class, from its containers' cpu and memory requests and limits. */
export function qosClass(pod: Pod): QosClass {
  const all = [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
  let any = false;
  let guaranteed = true;
  for (const c of all) {
    for (const r of ['cpu', 'memory']) {
      const req = c.resources.requests[r];
      const lim = c.resources.limits[r];
      if (req !== undefined || lim !== undefined) any = true;
      if (lim === undefined || req === undefined || parseQuantity(req).value !== parseQuantity(lim).value) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
