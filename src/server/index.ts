// Public surface of the server folder: the health server (10248); later the 10250/10255 servers.
export { createHealthzServer, type HealthzServer, type HealthzServerOptions } from './healthz.js';
