// Probe and lifecycle-handler rules of the API server's pod validation
// (validateProbe, validateHandler and friends). Zero in a probe's numeric
// fields means "the API default" (period 10 s, timeout 1 s, thresholds 1 and
// 3), so only negative values are refused.
import type { Container, LifecycleHandler, Probe } from './pod-types.js';
import { checkNonNegative, checkPortNumOrName, isHttpHeaderName, quote, type Report } from './pod-validate-util.js';

type Handler = LifecycleHandler & Pick<Probe, 'grpc'>;

/** Exactly one of exec, httpGet, tcpSocket (and grpc for probes), each well formed. */
export function validateHandler(h: Handler, path: string, report: Report): void {
  const given = (['exec', 'httpGet', 'tcpSocket', 'grpc'] as const).filter((k) => h[k] !== undefined);
  if (given.length === 0) report(path, 'must specify a handler type (exec, httpGet, tcpSocket or grpc)');
  for (const extra of given.slice(1)) report(`${path}.${extra}`, 'may not specify more than 1 handler type');
  if (h.exec && h.exec.command.length === 0) report(`${path}.exec.command`, 'required value');
  if (h.httpGet) {
    checkPortNumOrName(h.httpGet.port, `${path}.httpGet.port`, report);
    for (const [i, header] of (h.httpGet.httpHeaders ?? []).entries()) {
      if (!isHttpHeaderName(header.name)) report(`${path}.httpGet.httpHeaders[${i}].name`, `${quote(header.name)} is not a valid HTTP header name (letters, digits and '-')`);
    }
  }
  if (h.tcpSocket) checkPortNumOrName(h.tcpSocket.port, `${path}.tcpSocket.port`, report);
  if (h.grpc && (h.grpc.port < 1 || h.grpc.port > 65535)) report(`${path}.grpc.port`, `must be between 1 and 65535, got ${h.grpc.port}`);
}

export type ProbeKind = 'livenessProbe' | 'readinessProbe' | 'startupProbe';

export function validateProbe(p: Probe, kind: ProbeKind, path: string, report: Report): void {
  validateHandler(p, path, report);
  for (const f of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold'] as const) checkNonNegative(p[f], `${path}.${f}`, report);
  const tgps = p.terminationGracePeriodSeconds;
  if (kind === 'readinessProbe' && tgps !== undefined) report(`${path}.terminationGracePeriodSeconds`, 'must not be set for readinessProbes');
  else if (tgps !== undefined && tgps <= 0) report(`${path}.terminationGracePeriodSeconds`, `must be greater than 0, got ${tgps}`);
  // A liveness or startup probe succeeds once; 0 is defaulted to 1 by the API.
  if (kind !== 'readinessProbe' && p.successThreshold !== undefined && p.successThreshold !== 0 && p.successThreshold !== 1) {
    report(`${path}.successThreshold`, `must be 1, got ${p.successThreshold}`);
  }
}

/**
 * A port given by name in a probe or hook must name one of the container's
 * ports: the kubelet could never resolve it, and the probe would error
 * forever (a numeric string is a number).
 */
export function validateNamedPorts(c: Container, path: string, report: Report): void {
  const names = new Set((c.ports ?? []).map((p) => p.name).filter((n): n is string => n !== undefined));
  const check = (port: number | string | undefined, field: string): void => {
    if (typeof port === 'string' && !/^[0-9]+$/.test(port) && !names.has(port)) report(field, `${quote(port)} does not name a port of the container (spec ports: ${[...names].join(', ') || 'none'})`);
  };
  const handlers: Array<[Handler | undefined, string]> = [
    [c.livenessProbe, 'livenessProbe'],
    [c.readinessProbe, 'readinessProbe'],
    [c.startupProbe, 'startupProbe'],
    [c.lifecycle?.postStart, 'lifecycle.postStart'],
    [c.lifecycle?.preStop, 'lifecycle.preStop'],
  ];
  for (const [h, at] of handlers) {
    check(h?.httpGet?.port, `${path}.${at}.httpGet.port`);
    check(h?.tcpSocket?.port, `${path}.${at}.tcpSocket.port`);
  }
}
