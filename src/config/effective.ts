// Values derived from the configuration the way the kubelet derives them. The
// configuration keeps what the operator wrote (so --print-config and /configz
// show it); consumers ask here for the value in force.
import type { AgentConfiguration } from './options.js';
import { parseByteSize } from './values/quantity.js';

/** Pod capacity: --pods-per-core × cores when set, never above --max-pods. */
export function effectiveMaxPods(cfg: Pick<AgentConfiguration, 'maxPods' | 'podsPerCore'>, cpuCount: number): number {
  if (cfg.podsPerCore <= 0) return cfg.maxPods;
  return Math.min(cfg.maxPods, cfg.podsPerCore * cpuCount);
}

/** A client rate limit where 0 means the default (the kubelet's DefaultQPS 50 / DefaultBurst 100). */
export interface RateLimit {
  readonly qps: number;
  readonly burst: number;
}

const orDefault = (v: number, d: number): number => (v === 0 ? d : v);

export function apiServerRateLimit(cfg: Pick<AgentConfiguration, 'platformAPIQPS' | 'platformAPIBurst'>): RateLimit {
  return { qps: orDefault(cfg.platformAPIQPS, 50), burst: orDefault(cfg.platformAPIBurst, 100) };
}

export function eventRateLimit(cfg: Pick<AgentConfiguration, 'eventRecordQPS' | 'eventBurst'>): RateLimit {
  return { qps: orDefault(cfg.eventRecordQPS, 50), burst: orDefault(cfg.eventBurst, 100) };
}

/** Image pulls: --registry-qps 0 means unlimited, and the burst applies only to a positive rate. */
export function registryRateLimit(cfg: Pick<AgentConfiguration, 'registryPullQPS' | 'registryBurst'>): RateLimit | undefined {
  return cfg.registryPullQPS > 0 ? { qps: cfg.registryPullQPS, burst: cfg.registryBurst } : undefined;
}

/**
 * How many image pulls may run at once: 1 when serializeImagePulls; otherwise
 * maxParallelImagePulls, where 0 (unset) means no limit (undefined).
 */
export function maxParallelImagePulls(cfg: Pick<AgentConfiguration, 'serializeImagePulls' | 'maxParallelImagePulls'>): number | undefined {
  if (cfg.serializeImagePulls) return 1;
  return cfg.maxParallelImagePulls > 0 ? cfg.maxParallelImagePulls : undefined;
}

/**
 * The JSON log's info buffer in bytes (0: unbuffered). The configuration keeps
 * the text the operator wrote (`2Ki`); validation has already parsed it, so this
 * does not throw for a validated configuration. Called once at start.
 */
export function jsonInfoBufferBytes(cfg: Pick<AgentConfiguration, 'logging'>): number {
  return parseByteSize(cfg.logging.options.json.infoBufferSize);
}
