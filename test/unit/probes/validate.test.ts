// Probe and hook validation additions: a port given by name must be one of
// the container's ports; each problem names its field.
import { describe, expect, it } from 'vitest';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import { validatePod } from '../../../src/pod-model/pod-validate.js';

function problems(container: Record<string, unknown>): string[] {
  const d = decodePod({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'main', image: 'busybox', ...container }] } });
  return (d.ok ? validatePod(d.pod) : d.problems).map((p) => `${p.field}: ${p.message}`);
}

describe('probe and hook ports by name', () => {
  const ports = [{ name: 'http', containerPort: 8080 }];
  it.each<[string, Record<string, unknown>, string | undefined]>([
    ['a declared port name', { ports, livenessProbe: { httpGet: { port: 'http' } } }, undefined],
    ['a port number', { readinessProbe: { tcpSocket: { port: 80 } } }, undefined],
    ['an undeclared name in httpGet', { ports, livenessProbe: { httpGet: { port: 'admin' } } }, 'spec.containers[0].livenessProbe.httpGet.port: "admin" does not name a port of the container'],
    ['an undeclared name in tcpSocket', { startupProbe: { tcpSocket: { port: 'db' } } }, 'spec.containers[0].startupProbe.tcpSocket.port: "db" does not name a port of the container'],
    ['an undeclared name in a preStop hook', { lifecycle: { preStop: { httpGet: { port: 'quit' } } } }, 'spec.containers[0].lifecycle.preStop.httpGet.port: "quit" does not name a port'],
    ['a port number out of range', { livenessProbe: { httpGet: { port: 70000 } } }, 'spec.containers[0].livenessProbe.httpGet.port: must be between 1 and 65535'],
    ['grpc port 0', { livenessProbe: { grpc: { port: 0 } } }, 'spec.containers[0].livenessProbe.grpc.port: must be between 1 and 65535'],
    ['a hook with grpc has no handler (grpc is not a hook handler)', { lifecycle: { postStart: { grpc: { port: 9 } } } }, 'spec.containers[0].lifecycle.postStart: must specify a handler type'],
    ['liveness successThreshold 2', { livenessProbe: { exec: { command: ['x'] }, successThreshold: 2 } }, 'spec.containers[0].livenessProbe.successThreshold: must be 1'],
  ])('%s', (_, container, want) => {
    const got = problems(container);
    if (want === undefined) expect(got).toEqual([]);
    else expect(got.join('\n')).toContain(want);
  });
});
