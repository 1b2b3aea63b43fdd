// The Transport the client's integration tests use: the real one
// (src/client/transport) from the server's admin platformconfig, as the agent
// builds it, with rate limits high enough that they never pace a test (the
// limiter has its own tests).
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { loadApiCodec } from '../../../../src/api/codec/index.js';
import { MEDIA_JSON, MEDIA_PROTOBUF } from '../../../../src/api/media.js';
import { loadPlatformConfig } from '../../../../src/client/config/index.js';
import { createRestClient, type RestClient } from '../../../../src/client/rest/index.js';
import { createTransport } from '../../../../src/client/transport/index.js';
import type { ClientLog, Transport } from '../../../../src/client/types.js';
import type { ServerHandle } from '../../../conformance/helpers/server.js';

const quiet: ClientLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

export async function testTransport(srv: ServerHandle, log: ClientLog = quiet): Promise<Transport> {
  const conn = await loadPlatformConfig(join(srv.dir, 'admin.conf'));
  return createTransport(conn, { qps: 100_000, burst: 100_000, eventQps: 100_000, eventBurst: 100_000, log });
}

/** POST /debug/faults/<action> as the admin (servers started with `faults: true`). */
export async function fault(srv: ServerHandle, action: 'drop-watches' | 'compact' | 'reset' | 'fail' | 'delay', body: Record<string, unknown> = {}): Promise<void> {
  const res = await srv.admin.post(`/debug/faults/${action}`, { body });
  if (res.status !== 200) throw new Error(`fault ${action}: ${res.status} ${res.text()}`);
}

/**
 * Registers, inside a describeBackends body, a beforeAll that builds one real
 * Transport and a RestClient per representation (JSON, protobuf) and an
 * afterAll that closes it; returns the lookup the tests call.
 */
export function restClientsPerRepresentation(srv: () => ServerHandle): { clientFor(ct: Representation): RestClient; transport(): Transport } {
  let transport: Transport | undefined;
  const clients = new Map<Representation, RestClient>();
  beforeAll(async () => {
    transport = await testTransport(srv());
    const codec = await loadApiCodec();
    for (const ct of REPRESENTATIONS) clients.set(ct, createRestClient({ transport, codec, contentType: ct, log: quiet }));
  });
  afterAll(async () => {
    await transport?.close();
  });
  const built = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('rest clients not built yet');
    return v;
  };
  return { clientFor: (ct) => built(clients.get(ct)), transport: () => built(transport) };
}

export type Representation = typeof MEDIA_JSON | typeof MEDIA_PROTOBUF;
export const REPRESENTATIONS: readonly Representation[] = [MEDIA_JSON, MEDIA_PROTOBUF];
