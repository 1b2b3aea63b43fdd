// Builds the core/v1 Event client-go's recorder makes for one call
// (makeEvent), and the keys its correlator groups events by. Pure.
import type { CoreEvent, EventObjectRef, EventSource, EventType } from './types.js';

/** RFC 3339 at second precision, as metav1.Time serializes. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * `<object>.<hex nanoseconds>`, as client-go names events. Two events made in
 * the same millisecond differ by `seq` (a counter the caller keeps) in the
 * sub-millisecond digits, where client-go's clock would differ too.
 */
export function eventName(objectName: string, ms: number, seq: number): string {
  const ns = BigInt(Math.floor(ms)) * 1_000_000n + BigInt(seq % 1_000_000);
  return `${objectName}.${ns.toString(16)}`;
}

export interface MakeEventInput {
  ref: EventObjectRef;
  type: EventType;
  reason: string;
  message: string;
  source: EventSource;
  nowMs: number;
  seq: number;
}

/** The event in the object's namespace (`default` for cluster-scoped objects such as the Node), count 1. */
export function makeEvent(i: MakeEventInput): CoreEvent {
  const { ref } = i;
  const t = rfc3339(i.nowMs);
  const involved: CoreEvent['involvedObject'] = { kind: ref.kind, name: ref.name, uid: ref.uid };
  if (ref.namespace !== undefined && ref.namespace !== '') involved.namespace = ref.namespace;
  involved.apiVersion = ref.apiVersion ?? 'v1';
  if (ref.fieldPath !== undefined && ref.fieldPath !== '') involved.fieldPath = ref.fieldPath;
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: eventName(ref.name, i.nowMs, i.seq), namespace: ref.namespace || 'default' },
    involvedObject: involved,
    reason: i.reason,
    message: i.message,
    source: { component: i.source.component, host: i.source.host },
    firstTimestamp: t,
    lastTimestamp: t,
    count: 1,
    type: i.type,
    reportingComponent: i.source.component,
    reportingInstance: i.source.host,
  };
}

const join = (parts: ReadonlyArray<string | undefined>): string => parts.map((p) => p ?? '').join('\u0000');

/** client-go's getEventKey: everything that makes two events the same one (the message included). */
export function eventKey(e: CoreEvent): string {
  const o = e.involvedObject;
  return join([e.source.component, e.source.host, o.kind, o.namespace, o.name, o.fieldPath, o.uid, o.apiVersion, e.type, e.reason, e.message]);
}

/** client-go's EventAggregatorByReasonFunc: events alike but for the message (the aggregate key; the message is the local key). */
export function aggregateKey(e: CoreEvent): string {
  const o = e.involvedObject;
  return join([e.source.component, e.source.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion, e.type, e.reason, e.reportingComponent, e.reportingInstance]);
}

/** client-go's getSpamKey: one spam bucket per source and object (and event type). */
export function spamKey(e: CoreEvent): string {
  const o = e.involvedObject;
  return join([e.source.component, e.source.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion, e.type]);
}
