// One small interface over the four ways to check a container (exec, httpGet,
// tcpSocket, grpc): the probe workers and the lifecycle hooks (src/hooks/)
// both run their handlers through it, so the two share one exec and one HTTP
// code path, as the kubelet's prober and handler runner share pkg/probe.
import type { ContainerPort, Probe } from '../pod-model/pod-types.js';

/** A handler as a probe or a hook declares it: exactly one of these is set (validation ensures it). */
export type Action = Pick<Probe, 'exec' | 'httpGet' | 'tcpSocket' | 'grpc'>;

/**
 * The outcome of running a handler once (the kubelet's probe.Result): `warning`
 * is a success worth telling the operator about (a redirect to another host).
 * A handler that could not run at all (the runtime refused the exec) throws:
 * that is a prober error, not a verdict on the container.
 */
export interface ActionResult {
  readonly result: 'success' | 'warning' | 'failure';
  /** What the handler said: the command's output, the body, the error. Bounded. */
  readonly output: string;
}

/** Where and how long a handler runs. */
export interface ActionTarget {
  /** The CRI container ID (for exec). */
  readonly containerId: string;
  /** The host when the handler names none: the pod's IP (the node's, on the host network). */
  readonly podIP: string;
  /** The container's ports, for a port given by name. */
  readonly ports: readonly ContainerPort[];
  /** The handler's budget in ms; 0: none (a postStart hook), bounded by `signal` alone. */
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
}

/** A handler that names a port the container does not declare (the kubelet's FindPortByName error). */
export class UnknownPortError extends Error {
  constructor(readonly port: string) {
    super(`couldn't find port "${port}" in the container's ports`);
    this.name = 'UnknownPortError';
  }
}

/** A port given by number or by the name of one of the container's ports; throws UnknownPortError. */
export function resolvePort(port: number | string, ports: readonly ContainerPort[]): number {
  if (typeof port === 'number') return port;
  const byName = ports.find((p) => p.name === port);
  if (byName) return byName.containerPort;
  // The API accepts a numeric string too (an IntOrString holding digits).
  if (/^[0-9]+$/.test(port)) return Number(port);
  throw new UnknownPortError(port);
}

/** An IPv6 literal goes in brackets in a URL or a host:port. */
export function hostForUrl(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** At most `max` characters of a handler's output for logs and events. */
export function bounded(s: string, max = 1024): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}
