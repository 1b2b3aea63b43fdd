// Public surface of the server folder: the health server (10248) and the contracts of the 10250/10255 servers.
export * from './types.js';
export { createHealthzServer, type HealthzServer, type HealthzServerOptions } from './healthz.js';
