// The agent's node writers over the client's ResourceClient (issue 17 item 8):
// node and pod status patches with a uid precondition, and the node lease
// heartbeat. The agent's API-server mode builds its status loop, status
// manager and heartbeat on these; see README.md.
export { NodeWriterError, isNodeWriterError, type NodeWriterOperation } from './errors.js';
export { nodeStatusPatchBody, podStatusPatchBody } from './status-patch.js';
export {
  NODE_STATUS_UPDATE_RETRY,
  nodeStatusGetOptions,
  patchNodeStatus,
  patchPodStatus,
  syncPodStatus,
  updateNodeStatus,
  type PodStatusChange,
  type StatusWriteResult,
  type UpdateNodeStatusOptions,
} from './status-writer.js';
export {
  DEFAULT_LEASE_DURATION_SECONDS,
  ENSURE_LEASE_BACKOFF,
  LEASE_API_VERSION,
  LEASE_RENEW_INTERVAL_FRACTION,
  LEASE_RENEW_JITTER,
  MAX_LEASE_UPDATE_RETRIES,
  NODE_LEASE_NAMESPACE,
  desiredLease,
  hasOwnerReferences,
  jitteredMs,
  microTime,
  nextEnsureBackoffMs,
  onLeaseUpdateFailure,
  renewIntervalMs,
  type LeaseIdentity,
} from './lease.js';
export { NodeLeaseController, type NodeLeaseOptions } from './lease-controller.js';
