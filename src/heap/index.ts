// Public surface of the heap folder (V8 heap helpers, not the Memory Manager): the collector that returns a burst's garbage once the burst is over.
export { createBurstCollector, exposedGc, type BurstCollector, type BurstCollectorOptions } from './after-burst.js';
