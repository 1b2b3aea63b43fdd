// Public surface of the status folder: pod status computation, the store
// readers subscribe to, and publishing (compute, log, store).
export { computePodStatus, podPhase, type ContainerKind, type StatusInputs, type Waiting } from './compute.js';
export { StatusStore, type PodWithStatus, type StatusListener } from './store.js';
export { publishPodStatus } from './publish.js';

import { StatusStore } from './store.js';

/** The status store every reader and the pod workers share; the composition root makes one. */
export const createStatusStore = (): StatusStore => new StatusStore();
