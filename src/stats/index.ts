// The node's resource usage: the stats summary and the resource and cAdvisor
// metrics (issue 18 F). See README.md.
export { createStatsProvider, DEFAULT_STATS_PERIOD_MS, type StatsProvider, type StatsProviderOptions } from './provider.js';
export { statsRoutes } from './routes.js';
export type { StatsSnapshot, Summary } from './types.js';
