// The kubelet's event broadcaster, recorder and sink in one component: emit
// sites call event() (never blocks, never throws), which queues; one worker
// takes the queue in order, runs each event through the correlator
// (aggregation, deduplication, spam filter) and writes it: a POST, or for a
// repeat a strategic-merge PATCH of count/lastTimestamp/message (a POST again
// when the server lost it). Requests draw from the client's events bucket
// (--event-qps/--event-burst: the rest layer picks it for the events
// resource). As client-go's recordToSink: a connection failure is retried up
// to 12 times 10 s apart (the first wait randomized), the queue waiting behind
// it; an answer from the server (4xx, 5xx) is final. The queue holds 1000
// events (the kubelet's broadcaster) and drops the oldest when full. Nothing
// runs after the signal aborts: the request in flight is cancelled, the
// queue dropped, and later event() calls are ignored.
import { PATCH_STRATEGIC } from '../api/media.js';
import { isAlreadyExists, isNotFound } from '../api/errors.js';
import { RESOURCES, isApiStatusError, isClientConnectionError, type ApiClient, type ApiObject, type ResourceClient } from '../client/index.js';
import { defineComponent, type Component } from '../lifecycle/component.js';
import { abortableSleep, onAbort } from '../lifecycle/abort.js';
import type { AgentLogger } from '../log/index.js';
import { EventCorrelator, type CorrelatorLimits, type CorrelateResult } from './correlator.js';
import { makeEvent } from './make-event.js';
import type { CoreEvent, EventObjectRef, EventRecorder, EventType } from './types.js';

export interface EventRecorderOptions {
  client: ApiClient;
  /** `source.component` and `reportingComponent`: 'agent'. */
  component: string;
  /** `source.host` and `reportingInstance`: the node's name. */
  host: string;
  log: AgentLogger;
  /** Wall-clock ms (Date.now by default): timestamps, names, the correlator's windows. */
  now?: () => number;
  /** Test seams: queue bound, the connection-failure retries, [0,1) randomness, correlator limits. */
  queueSize?: number;
  retry?: { tries: number; intervalMs: number };
  random?: () => number;
  limits?: Partial<CorrelatorLimits>;
}

/** client-go's maxQueuedEvents (the broadcaster's channel). */
export const EVENT_QUEUE_SIZE = 1000;
/** client-go's maxTriesPerEvent and defaultSleepDuration. */
export const EVENT_RETRY = { tries: 12, intervalMs: 10_000 } as const;

interface Pending {
  ref: EventObjectRef;
  type: EventType;
  reason: string;
  message: string;
  atMs: number;
}

type Outcome = 'done' | 'retry';

const describe = (e: CoreEvent): Record<string, unknown> => ({ object: `${e.involvedObject.namespace ? `${e.involvedObject.namespace}/` : ''}${e.involvedObject.name}`, kind: e.involvedObject.kind, reason: e.reason, type: e.type });

export function createEventRecorder(o: EventRecorderOptions): EventRecorder & Component {
  const now = o.now ?? Date.now;
  const maxQueued = o.queueSize ?? EVENT_QUEUE_SIZE;
  const retry = o.retry ?? EVENT_RETRY;
  const random = o.random ?? Math.random;
  const log = o.log;
  const correlator = new EventCorrelator(now, o.limits);
  const clients = new Map<string, ResourceClient>();
  const queue: Pending[] = [];
  let wake: (() => void) | undefined;
  let stopped = false;
  let dropping = false;
  /** The last failure logged, so an outage or a repeated rejection is logged once. */
  let lastProblem = '';

  const resource = (ns: string): ResourceClient => {
    let c = clients.get(ns);
    if (c === undefined) {
      c = o.client.rest.resource(RESOURCES.events, ns);
      clients.set(ns, c);
    }
    return c;
  };

  const problem = (key: string, msg: string, fields: Record<string, unknown>): void => {
    if (key === lastProblem) return;
    lastProblem = key;
    log.warn(msg, fields);
  };

  function event(ref: EventObjectRef, type: EventType, reason: string, message: string): void {
    if (stopped) return;
    log.v(3)?.info('Event occurred', { object: ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name, fieldPath: ref.fieldPath, kind: ref.kind, type, reason, message });
    queue.push({ ref, type, reason, message, atMs: now() });
    if (queue.length > maxQueued) {
      queue.shift();
      if (!dropping) {
        dropping = true;
        log.warn('Event queue full; dropping the oldest events until it drains', { queued: maxQueued });
      }
    }
    wake?.();
  }

  /** One write of one correlated event; 'retry' only for a connection failure. */
  async function write(r: Extract<CorrelateResult, { skip: false }>, signal: AbortSignal): Promise<Outcome> {
    const ev = r.event;
    const rc = resource(ev.metadata.namespace);
    try {
      let written: ApiObject | undefined;
      if (r.patch !== undefined) {
        try {
          written = await rc.patch(ev.metadata.name, PATCH_STRATEGIC, r.patch, { signal });
        } catch (e) {
          if (!isNotFound(e)) throw e;
        }
      }
      if (written === undefined) {
        const { resourceVersion: _rv, ...meta } = ev.metadata;
        written = await rc.create({ ...ev, metadata: meta } as unknown as ApiObject, { signal });
      }
      correlator.recorded(r.key, written as { metadata?: { name?: string; resourceVersion?: string }; count?: number; firstTimestamp?: string });
      if (lastProblem !== '') {
        if (lastProblem === 'connection') log.info('Writing events again', describe(ev));
        lastProblem = '';
      }
      return 'done';
    } catch (e) {
      if (signal.aborted) throw signal.reason;
      if (isApiStatusError(e)) {
        if (isAlreadyExists(e)) log.v(5)?.info('Event already exists; dropped', describe(ev));
        else problem(`status:${e.code}:${e.reason}`, 'Server rejected event (will not retry)', { ...describe(ev), err: e });
        return 'done';
      }
      if (isClientConnectionError(e)) {
        problem('connection', 'Unable to write event (may retry after sleeping)', { ...describe(ev), err: e });
        return 'retry';
      }
      problem(`other:${(e as Error).name}`, 'Unable to write event (will not retry)', { ...describe(ev), err: e });
      return 'done';
    }
  }

  async function deliver(p: Pending, signal: AbortSignal): Promise<void> {
    const fresh = makeEvent({ ref: p.ref, type: p.type, reason: p.reason, message: p.message, source: { component: o.component, host: o.host }, nowMs: p.atMs, seq: correlator.nextSeq() });
    const r = correlator.correlate(fresh);
    if (r.skip) {
      log.v(4)?.info('Event dropped by the spam filter', describe(fresh));
      return;
    }
    for (let tries = 1; ; tries++) {
      if ((await write(r, signal)) === 'done') return;
      if (tries >= retry.tries) {
        log.error('Unable to write event (retry limit exceeded)', { ...describe(r.event), tries });
        return;
      }
      await abortableSleep(tries === 1 ? retry.intervalMs * random() : retry.intervalMs, signal);
    }
  }

  const component = defineComponent('events', async (signal, markReady) => {
    const detach = onAbort(signal, () => {
      stopped = true;
      wake?.();
    });
    markReady();
    try {
      while (!signal.aborted) {
        const next = queue.shift();
        if (next === undefined) {
          dropping = false;
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
          continue;
        }
        try {
          await deliver(next, signal);
        } catch (e) {
          if (signal.aborted) break;
          log.error('Event delivery failed', { err: e });
        }
      }
    } finally {
      stopped = true;
      queue.length = 0;
      detach();
    }
  });

  return { name: component.name, ready: component.ready, run: (signal) => component.run(signal), event };
}
