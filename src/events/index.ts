// Public surface of the events folder: the recorder the agent's managers
// report pod and node events through (the kubelet's EventRecorder), the
// component that delivers them to the API server, and the references and
// no-op recorders emit sites use.
export type { CoreEvent, EventObjectRef, EventRecorder, EventSource, EventType } from './types.js';
export { createEventRecorder, EVENT_QUEUE_SIZE, EVENT_RETRY, type EventRecorderOptions } from './recorder.js';
export { EventCorrelator, COMBINED_PREFIX, DEFAULT_CORRELATOR_LIMITS, type CorrelateResult, type CorrelatorLimits, type EventPatch } from './correlator.js';
export { makeEvent, eventName, eventKey, aggregateKey, spamKey, rfc3339 } from './make-event.js';
export { containerRef, loggingRecorder, nodeRef, NOOP_RECORDER, podRef, type ContainerKind, type PodMeta } from './refs.js';
export { crashBackOffMessage, goDuration, probeEvent, pulledMessage, type ProbeEventKind } from './messages.js';
export * as reasons from './reasons.js';
