// What `--platformconfig` promises and this agent does not yet keep. API-server
// mode (node registration, the API pod source, node status and lease updates)
// is a later issue; until it lands an agent started in that mode runs only its
// local pod sources, and the operator must hear so at start instead of
// finding out from a node that never appears in the cluster.

/** The parts of API-server mode that are not served yet, as the start-up warning names them. */
export const NOT_SERVED_IN_API_SERVER_MODE: readonly string[] = [
  'node registration',
  'pods from the API server',
  'node status updates',
  'node lease renewal',
];

export const API_SERVER_MODE_WARNING =
  `API server mode is not implemented yet: --platformconfig is checked but not used. Not served: ${NOT_SERVED_IN_API_SERVER_MODE.join(', ')}. ` +
  'Only the local pod sources (--pod-manifest-path, --manifest-url) run; the node will not appear in the cluster';

export interface WarnLog {
  warn(msg: string, fields?: Record<string, unknown>): void;
}

/**
 * Called once by the composition root at start, in API-server mode only
 * (before any wait, so the warning is the first thing an operator sees after
 * "Starting agent"). Synchronous, never throws.
 */
export function warnApiServerModeNotServed(log: WarnLog, platformconfig: string): void {
  log.warn(API_SERVER_MODE_WARNING, { platformconfig });
}
