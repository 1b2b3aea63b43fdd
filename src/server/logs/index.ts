// The log endpoints of the main port (debugging handlers): container logs
// from the CRI log files and the node's log directory. The composition root
// builds these once and hands them to the HTTP core, which authenticates,
// authorizes (/logs → subresource `log`, /containerLogs → `proxy`) and
// dispatches; each request reads the files afresh (no state kept here).
import type { RuntimeService } from '../../cri/types.js';
import type { AgentLogger } from '../../log/index.js';
import type { StatusStore } from '../../status/store.js';
import type { Route } from '../types.js';
import { CONTAINER_LOGS_PREFIX, serveContainerLogs, type ContainerLogsDeps } from './container-logs.js';
import { NODE_LOGS_PREFIX, serveNodeLogs } from './node-logs.js';

export interface LogRoutesDeps {
  readonly status: Pick<StatusStore, 'all'>;
  readonly runtime: RuntimeService;
  /** Where the runtime writes container logs: /var/log/pods. */
  readonly podLogsDir: string;
  /** What /logs/ serves: /var/log. */
  readonly nodeLogDir: string;
  readonly log: AgentLogger;
}

/** /containerLogs/{namespace}/{pod}/{container} and /logs/. Both GET only, main port only, behind --enable-debugging-handlers. */
export function logRoutes(d: LogRoutesDeps): Route[] {
  return logRoutesWith(d);
}

/** logRoutes with the follow timings open to tests (see ReadLogsInput). */
export function logRoutesWith(d: LogRoutesDeps & Pick<ContainerLogsDeps, 'stateCheckMs' | 'pollMs' | 'now'>): Route[] {
  const log = d.log;
  return [
    {
      path: CONTAINER_LOGS_PREFIX,
      readOnly: false,
      debugging: true,
      methods: ['GET'],
      handle: (ctx) => serveContainerLogs({ ...d, log }, ctx),
    },
    {
      path: NODE_LOGS_PREFIX,
      readOnly: false,
      debugging: true,
      methods: ['GET'],
      handle: (ctx) => serveNodeLogs({ nodeLogDir: d.nodeLogDir, log }, ctx),
    },
  ];
}
