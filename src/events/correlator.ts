// client-go's EventCorrelator: what happens to an event before it is sent.
// Three stages, in client-go's order:
//   1. aggregation: more than `maxSimilar - 1` events alike but for their
//      message within `aggregateWindowMs` become one event whose message says
//      "(combined from similar events): ...", counted from then on;
//   2. deduplication: an event seen before (same key) becomes a PATCH of the
//      earlier one, count + 1 and a new lastTimestamp;
//   3. the spam filter: a token bucket per source and object (burst 25,
//      refilled 1 per 5 min) drops what exceeds it.
// Pure state on an injected clock (ms); the caches are LRU-bounded, so memory
// stays bounded however many objects come and go. Used by one recorder's
// worker only: not safe for interleaved callers between correlate() and
// recorded().
import { TokenBucket } from '../util/rate-limit.js';
import { aggregateKey, eventKey, eventName, rfc3339, spamKey } from './make-event.js';
import type { CoreEvent } from './types.js';

export interface CorrelatorLimits {
  /** client-go's defaultAggregateMaxEvents: the distinct messages at which aggregation starts. */
  maxSimilar: number;
  /** defaultAggregateIntervalInSeconds. */
  aggregateWindowMs: number;
  /** defaultSpamBurst and defaultSpamQPS (1/300). */
  spamBurst: number;
  spamQps: number;
  /** maxLruCacheEntries. */
  cacheSize: number;
}

export const DEFAULT_CORRELATOR_LIMITS: CorrelatorLimits = { maxSimilar: 10, aggregateWindowMs: 600_000, spamBurst: 25, spamQps: 1 / 300, cacheSize: 4096 };

export const COMBINED_PREFIX = '(combined from similar events): ';

/** The strategic-merge patch of a repeated event, as client-go's eventObserve computes it. */
export interface EventPatch {
  count: number;
  lastTimestamp: string;
  message: string;
}

export type CorrelateResult =
  | { skip: true }
  | {
      skip: false;
      event: CoreEvent;
      /** Present when the event repeats one already written: PATCH it (create it when the server lost it). */
      patch?: EventPatch;
      /** Hand back to recorded() once written. */
      key: string;
    };

/** A Map kept in recency order and cut to `max` entries. */
class Lru<V> {
  private readonly m = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(k: string): V | undefined {
    const v = this.m.get(k);
    if (v !== undefined) {
      this.m.delete(k);
      this.m.set(k, v);
    }
    return v;
  }
  set(k: string, v: V): void {
    this.m.delete(k);
    this.m.set(k, v);
    if (this.m.size > this.max) {
      const oldest = this.m.keys().next();
      if (!oldest.done) this.m.delete(oldest.value);
    }
  }
  get size(): number {
    return this.m.size;
  }
}

interface Observation {
  count: number;
  firstTimestamp: string;
  name: string;
  resourceVersion: string | undefined;
}

export class EventCorrelator {
  private readonly limits: CorrelatorLimits;
  private readonly aggregates: Lru<{ messages: Set<string>; lastMs: number }>;
  private readonly observed: Lru<Observation>;
  private readonly spam: Lru<TokenBucket>;
  private seq = 0;

  constructor(private readonly now: () => number, limits: Partial<CorrelatorLimits> = {}) {
    this.limits = { ...DEFAULT_CORRELATOR_LIMITS, ...limits };
    this.aggregates = new Lru(this.limits.cacheSize);
    this.observed = new Lru(this.limits.cacheSize);
    this.spam = new Lru(this.limits.cacheSize);
  }

  /** A per-recorder counter that keeps names of events made in the same millisecond apart. */
  nextSeq(): number {
    this.seq = (this.seq + 1) % 1_000_000;
    return this.seq;
  }

  /** Decides what to send for `input` (a fresh event, count 1); updates the caches as client-go's does, skipped or not. */
  correlate(input: CoreEvent): CorrelateResult {
    const { event, key } = this.aggregate(input);
    const { observedEvent, patch } = this.observe(event, key);
    if (!this.allow(observedEvent)) return { skip: true };
    return { skip: false, event: observedEvent, key, ...(patch ? { patch } : {}) };
  }

  /** The server accepted `written` (created or patched): later repeats patch it at its name and version. */
  recorded(key: string, written: { metadata?: { name?: string; resourceVersion?: string }; count?: number; firstTimestamp?: string }): void {
    const prev = this.observed.get(key);
    this.observed.set(key, {
      count: written.count ?? prev?.count ?? 1,
      firstTimestamp: written.firstTimestamp ?? prev?.firstTimestamp ?? '',
      name: written.metadata?.name ?? prev?.name ?? '',
      resourceVersion: written.metadata?.resourceVersion,
    });
  }

  private aggregate(e: CoreEvent): { event: CoreEvent; key: string } {
    const nowMs = this.now();
    const aKey = aggregateKey(e);
    let rec = this.aggregates.get(aKey);
    if (rec === undefined || nowMs - rec.lastMs > this.limits.aggregateWindowMs) rec = { messages: new Set(), lastMs: nowMs };
    rec.messages.add(e.message);
    rec.lastMs = nowMs;
    this.aggregates.set(aKey, rec);
    if (rec.messages.size < this.limits.maxSimilar) return { event: e, key: eventKey(e) };
    // client-go pops one message so the set stays at the threshold.
    const first = rec.messages.values().next();
    if (!first.done) rec.messages.delete(first.value);
    const t = rfc3339(nowMs);
    const combined: CoreEvent = {
      ...e,
      metadata: { name: eventName(e.involvedObject.name, nowMs, this.nextSeq()), namespace: e.metadata.namespace },
      message: COMBINED_PREFIX + e.message,
      count: 1,
      firstTimestamp: t,
      lastTimestamp: t,
    };
    return { event: combined, key: aKey };
  }

  private observe(e: CoreEvent, key: string): { observedEvent: CoreEvent; patch?: EventPatch } {
    const last = this.observed.get(key);
    if (last === undefined || last.count <= 0) {
      this.observed.set(key, { count: e.count, firstTimestamp: e.firstTimestamp, name: e.metadata.name, resourceVersion: undefined });
      return { observedEvent: e };
    }
    const count = last.count + 1;
    const observedEvent: CoreEvent = {
      ...e,
      metadata: { ...e.metadata, name: last.name, ...(last.resourceVersion !== undefined ? { resourceVersion: last.resourceVersion } : {}) },
      firstTimestamp: last.firstTimestamp,
      count,
    };
    this.observed.set(key, { ...last, count });
    return { observedEvent, patch: { count, lastTimestamp: e.lastTimestamp, message: e.message } };
  }

  private allow(e: CoreEvent): boolean {
    const k = spamKey(e);
    let bucket = this.spam.get(k);
    if (bucket === undefined) {
      bucket = new TokenBucket(this.limits.spamQps, this.limits.spamBurst, this.now);
      this.spam.set(k, bucket);
    }
    return bucket.tryTake();
  }
}
