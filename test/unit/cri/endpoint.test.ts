import { describe, expect, it } from 'vitest';
import { parseEndpoint } from '../../../src/cri/endpoint.js';

describe('parseEndpoint', () => {
  it.each([
    ['unix:///run/containerd/containerd.sock', 'unix:/run/containerd/containerd.sock', 'unix', false],
    ['unix:///tmp/a b/c.sock', 'unix:/tmp/a b/c.sock', 'unix', false],
    ['/run/containerd/containerd.sock', 'unix:/run/containerd/containerd.sock', 'unix', true],
    ['tcp://127.0.0.1:3735', '127.0.0.1:3735', 'tcp', false],
    ['tcp://localhost:1/', 'localhost:1', 'tcp', false],
    ['tcp://[::1]:65535', '[::1]:65535', 'tcp', false],
    ['TCP://runtime.example:80', 'runtime.example:80', 'tcp', false],
  ] as const)('%s -> %s', (endpoint, target, transport, deprecatedForm) => {
    expect(parseEndpoint(endpoint)).toEqual({ endpoint, target, transport, deprecatedForm });
  });

  it.each([
    ['', 'empty'],
    ['npipe:////./pipe/containerd', 'unsupported scheme "npipe"'],
    ['http://127.0.0.1:80', 'unsupported scheme "http"'],
    ['unix://run/containerd.sock', 'must be absolute'],
    ['unix://', 'must be absolute'],
    ['tcp://127.0.0.1', 'expected tcp://host:port'],
    ['tcp://127.0.0.1:0', 'expected tcp://host:port'],
    ['tcp://127.0.0.1:70000', 'expected tcp://host:port'],
    ['containerd.sock', 'no scheme'],
  ])('rejects %j (%s)', (endpoint, why) => {
    let err: unknown;
    try {
      parseEndpoint(endpoint, '--image-service-endpoint');
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'EVALUE', flag: '--image-service-endpoint' });
    expect((err as Error).message).toContain(why);
    expect((err as Error).message).toContain('unix:///path/to/socket or tcp://host:port');
  });
});
