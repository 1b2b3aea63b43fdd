// Public surface of the prober: the manager (workers per probed container,
// results per container instance, counters and timing) and the read-side
// contract the pod decisions consume. The handlers are exported for the
// lifecycle hooks (src/hooks/), which run exec and httpGet the same way.
export { createProber, type Prober, type ProberOptions } from './manager.js';
export { NO_PROBE_RESULTS, type ProbeKind, type ProbeOutcome, type ProbeResultsView } from './view.js';
export { ProbeCounters, ProbeTiming, type ProbeCount } from './metrics.js';
export { SYSTEM_CLOCK, type ProbeClock } from './worker.js';
