// Public surface of the pleg folder: the generic (relisting) PLEG.
export { createPleg, RELIST_PERIOD_MS, RELIST_THRESHOLD_MS, type Pleg, type PlegOptions } from './generic.js';
