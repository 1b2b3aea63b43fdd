// The recorder's public shapes: what an emit site hands over (a reference to
// the object and the kubelet's type, reason and message) and the core/v1
// Event the recorder builds from it. Kept apart from the implementation so
// emit sites `import type` them only.

export type EventType = 'Normal' | 'Warning';

/** The object an event is about (the Event's involvedObject). Node events have no namespace (they go to `default`). */
export interface EventObjectRef {
  kind: 'Pod' | 'Node';
  namespace?: string;
  name: string;
  uid: string;
  apiVersion?: string;
  /** `spec.containers{name}` for a container's event, as the kubelet's container references. */
  fieldPath?: string;
}

/**
 * Records events about pods and the node. Called from sync, probe, image and
 * volume code on their own paths: `event` never blocks and never throws (it
 * queues; delivery, deduplication and rate limiting happen behind it).
 */
export interface EventRecorder {
  event(obj: EventObjectRef, type: EventType, reason: string, message: string): void;
}

/** `source` of an Event: the recording component and the node it runs on. */
export interface EventSource {
  component: string;
  host: string;
}

/** A core/v1 Event in its JSON form, as the recorder writes it. */
export interface CoreEvent {
  apiVersion: 'v1';
  kind: 'Event';
  metadata: { name: string; namespace: string; resourceVersion?: string };
  involvedObject: { kind: string; namespace?: string; name: string; uid: string; apiVersion?: string; fieldPath?: string };
  reason: string;
  message: string;
  source: EventSource;
  /** RFC 3339, second precision. */
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  type: EventType;
  reportingComponent: string;
  reportingInstance: string;
}
