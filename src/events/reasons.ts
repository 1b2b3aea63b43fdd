// The kubelet's event reasons (pkg/kubelet/events), one place for every emit site.
export const CREATED_CONTAINER = 'Created';
export const STARTED_CONTAINER = 'Started';
export const FAILED_TO_CREATE_CONTAINER = 'Failed';
export const FAILED_TO_START_CONTAINER = 'Failed';
export const KILLING_CONTAINER = 'Killing';
export const PREEMPT_CONTAINER = 'Preempting';
export const BACKOFF_START_CONTAINER = 'BackOff';
export const EXCEEDED_GRACE_PERIOD = 'ExceededGracePeriod';
export const FAILED_POST_START_HOOK = 'FailedPostStartHook';
export const FAILED_PRE_STOP_HOOK = 'FailedPreStopHook';

export const PULLING_IMAGE = 'Pulling';
export const PULLED_IMAGE = 'Pulled';
export const FAILED_TO_PULL_IMAGE = 'Failed';
export const FAILED_TO_INSPECT_IMAGE = 'InspectFailed';
export const ERR_IMAGE_NEVER_PULL = 'ErrImageNeverPull';
export const BACKOFF_PULL_IMAGE = 'BackOff';

export const FAILED_MOUNT_VOLUME = 'FailedMount';
export const FAILED_CREATE_POD_SANDBOX = 'FailedCreatePodSandBox';
export const SANDBOX_CHANGED = 'SandboxChanged';
export const FAILED_STATUS_POD_SANDBOX = 'FailedPodSandBoxStatus';

export const CONTAINER_UNHEALTHY = 'Unhealthy';
export const CONTAINER_PROBE_WARNING = 'ProbeWarning';

export const STARTING_AGENT = 'Starting';
export const NODE_READY = 'NodeReady';
export const NODE_NOT_READY = 'NodeNotReady';
export const NODE_SCHEDULABLE = 'NodeSchedulable';
export const NODE_NOT_SCHEDULABLE = 'NodeNotSchedulable';
export const NODE_REBOOTED = 'Rebooted';
export const NODE_ALLOCATABLE_ENFORCED = 'NodeAllocatableEnforced';
export const REGISTERED_NODE = 'RegisteredNode';
