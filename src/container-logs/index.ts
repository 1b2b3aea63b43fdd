// Public surface of the container-logs folder: the log rotation manager (a
// component the composition root runs beside the pod manager) and how its
// limits come from the configuration.
import type { AgentConfiguration } from '../config/options.js';
import { parseQuantity } from '../config/values/quantity.js';

export { createContainerLogManager, LOG_MONITOR_PERIOD_MS, MAX_CONTAINERS_PER_TICK, type ContainerLogManager, type ContainerLogManagerOptions } from './manager.js';
export { planRotation, rotationTimestamp, type RotationInput, type RotationPlan } from './plan.js';

/**
 * --container-log-max-size in bytes and --container-log-max-files; undefined
 * when rotation is off (a size of 0 or below: config/startup-checks.ts warns
 * about a negative one). The configuration is validated before this runs.
 */
export function logRotationLimits(cfg: Pick<AgentConfiguration, 'containerLogMaxSize' | 'containerLogMaxFiles'>): { maxSize: number; maxFiles: number } | undefined {
  const maxSize = Math.floor(parseQuantity(cfg.containerLogMaxSize).value);
  return maxSize > 0 ? { maxSize, maxFiles: cfg.containerLogMaxFiles } : undefined;
}
