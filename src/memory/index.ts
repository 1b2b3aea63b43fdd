// Public surface of the memory folder: the collector that returns a burst's garbage once the burst is over.
export { createBurstCollector, exposedGc, type BurstCollector, type BurstCollectorOptions } from './after-burst.js';
