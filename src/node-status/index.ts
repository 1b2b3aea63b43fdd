// The agent's node in API-server mode: registration, node status and the
// node lease (issue 19 items 1–3). See README.md.
export { createNodeAgent, REGISTER_BACKOFF } from './node-agent.js';
export type { NodeAgent, NodeAgentLog, NodeAgentOptions, NodeEventRecorder, NodeRef } from './types.js';
export { readHostFacts, readRuntimeFacts, runtimeNotReady, statusFacts, type HostFacts, type NodePressure, type NodeRuntime } from './facts.js';
export { initialNode, reconcileExistingNode, DEFAULT_LABELS, LABEL_ARCH, LABEL_HOSTNAME, LABEL_OS, TAINT_UNSCHEDULABLE, ANNOTATION_CONTROLLER_MANAGED_ATTACH_DETACH, type RegistrationInput } from './registration.js';
export { buildNodeStatus, nodeStatusChanged, statusImages, MAX_NAMES_PER_IMAGE, REQUIRED_CAPACITY, type StatusFacts, type NodeInfo } from './status.js';
export { nodeConditions, type NodeCondition, type ConditionInputs } from './conditions.js';
export { formatBinary, formatMilliCpu, nodeAllocatable, nodeCapacity, nodeReservation, toResourceList } from './resources.js';
