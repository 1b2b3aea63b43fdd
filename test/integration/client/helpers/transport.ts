// The Transport the client's integration tests use: the real one
// (src/client/transport) from the server's admin platformconfig, as the agent
// builds it, with rate limits high enough that they never pace a test (the
// limiter has its own tests).
import { join } from 'node:path';
import { loadPlatformConfig } from '../../../../src/client/config/index.js';
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
