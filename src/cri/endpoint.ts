// Runtime endpoints as the operator writes them (--container-runtime-endpoint,
// --image-service-endpoint) and the gRPC target each one names.

import { isAbsolute } from 'node:path';
import { AgentError } from '../errors.js';

export interface ParsedEndpoint {
  /** As configured, for messages. */
  readonly endpoint: string;
  /** The target grpc-js dials: `unix:/abs/path` or `host:port`. */
  readonly target: string;
  readonly transport: 'unix' | 'tcp';
  /** A bare path without `unix://`: accepted, as the kubelet does, but deprecated. */
  readonly deprecatedForm: boolean;
}

/**
 * Parses `unix:///abs/path` or `tcp://host:port` (a bare absolute path counts as
 * `unix://` with `deprecatedForm` set). Throws an EVALUE AgentError naming
 * `flag` for anything else: other schemes (npipe is Windows-only), relative
 * socket paths, a tcp address without a port.
 */
export function parseEndpoint(endpoint: string, flag = '--container-runtime-endpoint'): ParsedEndpoint {
  const fail = (why: string): never => {
    throw new AgentError('EVALUE', `invalid runtime endpoint "${endpoint}": ${why}; use unix:///path/to/socket or tcp://host:port`, { flag });
  };
  if (endpoint === '') return fail('empty');
  if (endpoint.startsWith('/')) {
    return { endpoint, target: `unix:${endpoint}`, transport: 'unix', deprecatedForm: true };
  }
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/(.*)$/.exec(endpoint);
  if (m === null) return fail('no scheme');
  const scheme = (m[1] ?? '').toLowerCase();
  const rest = m[2] ?? '';
  if (scheme === 'unix') {
    if (!isAbsolute(rest)) return fail('the socket path must be absolute (three slashes: unix:///run/...)');
    return { endpoint, target: `unix:${rest}`, transport: 'unix', deprecatedForm: false };
  }
  if (scheme === 'tcp') {
    const hp = /^(\[[0-9a-fA-F:.]+\]|[^:/[\]]+):(\d{1,5})\/?$/.exec(rest);
    const port = Number(hp?.[2]);
    if (hp === null || !(port > 0 && port < 65536)) return fail('expected tcp://host:port');
    return { endpoint, target: `${hp[1] ?? ''}:${port}`, transport: 'tcp', deprecatedForm: false };
  }
  return fail(`unsupported scheme "${scheme}"`);
}
