// Public surface of the heap folder (the agent's own memory, not the Memory Manager): the collector that returns a burst's garbage once the burst is over, the one that keeps a steady agent's old generation small, and the trimmer that returns malloc's free pages.
export { createBurstCollector, exposedGc, type BurstCollector, type BurstCollectorOptions } from './after-burst.js';
export { createGrowthCollector, type GrowthCollectorOptions } from './growth-gc.js';
export { mallocTrimmerIfAvailable } from './malloc-trim.js';
