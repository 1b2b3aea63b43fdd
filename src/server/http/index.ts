// The HTTP core of the node servers (10250, 10255): listeners, limits, the
// request pipeline. Endpoint families bring Routes (src/server/types.ts).
export { createNodeServer, type NodeServer, type NodeServerOptions } from './server.js';
export { DEFAULT_LIMITS, resolveLimits, type ServerLimits } from './limits.js';
export type { NodeAuth, ServerLog } from './pipeline.js';
export { createLoadGovernor, DEFAULT_GOVERNOR, nextHoldMs, type GovernorPolicy, type LoadGovernor } from './governor.js';
