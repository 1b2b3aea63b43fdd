// What the node agent's integration tests share: a client CA the server
// trusts (--client-ca-file) issuing `system:node:<name>` certificates, an
// ApiClient for such a node built as the agent builds one (platformconfig of
// the server, then the node's certificate instead of the admin token), a
// configuration resolved from flags, fixed host facts and a recording log.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadApiCodec } from '../../../src/api/codec/index.js';
import { parseFlags } from '../../../src/cli/flags.js';
import type { ApiClient } from '../../../src/client/index.js';
import { loadPlatformConfig } from '../../../src/client/config/index.js';
import { createRestClient } from '../../../src/client/rest/index.js';
import { createTransport } from '../../../src/client/transport/index.js';
import type { RetryPolicy } from '../../../src/client/transport/index.js';
import type { ConnectionConfig } from '../../../src/client/types.js';
import { resolveConfig, type ResolvedConfig } from '../../../src/config/resolve.js';
import type { NodeAgentLog } from '../../../src/node-status/index.js';
import type { HostFacts } from '../../../src/node-status/facts.js';
import { generateKeyPair, issueCertificate, privateKeyPem, type KeyPair } from '../../../src/pki/x509.js';
import type { ServerHandle } from '../../conformance/helpers/server.js';

export interface ClientCa {
  readonly file: string;
  issue(nodeName: string): { cert: string; key: string };
}

export function clientCa(dir: string): ClientCa {
  const ca: KeyPair = generateKeyPair();
  const subject = { commonName: 'node-client-ca' };
  const now = Date.now();
  const notBefore = new Date(now - 60_000);
  const notAfter = new Date(now + 86_400_000);
  const file = join(dir, 'client-ca.crt');
  writeFileSync(file, issueCertificate({ subject, publicKey: ca.publicKey, selfKey: ca.privateKey, notBefore, notAfter, isCA: true }));
  return {
    file,
    issue(nodeName) {
      const k = generateKeyPair();
      const cert = issueCertificate({ subject: { commonName: `system:node:${nodeName}`, organizations: ['system:nodes'] }, publicKey: k.publicKey, issuer: { subject, ...ca }, notBefore, notAfter, isCA: false, usage: 'client' });
      return { cert, key: privateKeyPem(k.privateKey) };
    },
  };
}

/** The server's connection (from its admin platformconfig) with a node's certificate instead of the admin token. */
export async function nodeConnection(srv: ServerHandle, ca: ClientCa, nodeName: string): Promise<ConnectionConfig> {
  const admin = await loadPlatformConfig(join(srv.dir, 'admin.conf'));
  return { ...admin, token: undefined, tokenFile: undefined, clientCert: ca.issue(nodeName) };
}

/** `retry` shortens the transport's own retries (5 with back-off up to 5 s) where a test waits for failures. */
export async function apiClient(connection: ConnectionConfig, retry?: Partial<RetryPolicy>): Promise<ApiClient> {
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const transport = createTransport(connection, { qps: 1000, burst: 1000, eventQps: 1000, eventBurst: 1000, log: quiet, ...(retry === undefined ? {} : { retry }) });
  const rest = createRestClient({ transport, codec: await loadApiCodec(), contentType: 'application/vnd.platform.protobuf', log: quiet });
  return { connection, transport, rest, close: () => transport.close() };
}

export async function resolved(args: string[]): Promise<ResolvedConfig> {
  const p = parseFlags(args);
  return resolveConfig({ configFlags: p.configFlags, otherFlags: p.otherFlags, env: {} });
}

export const HOST: HostFacts = {
  host: {
    memoryBytes: 8 * 1024 ** 3,
    hugePages: [{ pageSize: 2 * 1024 ** 2, pages: 0 }],
    rootFsBytes: 100 * 1024 ** 3,
    machineID: 'machine-1',
    systemUUID: 'uuid-1',
    bootID: 'boot-1',
    kernelVersion: '6.1.0-test',
    osImage: 'Test OS 1',
    operatingSystem: 'linux',
    architecture: 'amd64',
  },
  network: { interfaces: { eth0: [{ address: '10.0.0.5', internal: false }] }, defaultRoute: { v4: 'eth0' } },
  cpus: 4,
};

export interface RecordingLog extends NodeAgentLog {
  readonly lines: string[];
  count(re: RegExp): number;
}

export function recordingLog(): RecordingLog {
  const lines: string[] = [];
  const push = (level: string) => (msg: string, fields?: Record<string, unknown>): void => void lines.push(`${level} ${msg} ${JSON.stringify(fields ?? {})}`);
  return { lines, info: push('info'), warn: push('warn'), error: push('error'), count: (re) => lines.filter((l) => re.test(l)).length };
}

/** Waits (bounded) for `fn` to give a value; polls the API, which has no event to wait on from outside. */
export async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}${last === undefined ? '' : `: ${String(last)}`}`);
}
