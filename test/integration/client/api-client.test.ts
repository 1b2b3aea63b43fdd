// createApiClient, as the agent's composition root will call it: the admin
// platformconfig of a real server and the agent's option values in, a working
// RestClient out (protobuf and JSON); a bad file is a ClientConfigError
// naming it, before any connection.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientConfigError, RESOURCES, createApiClient, type ApiClient, type ClientLog } from '../../../src/client/index.js';
import { startServer, type ServerHandle } from '../../conformance/helpers/server.js';

const quiet: ClientLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('createApiClient', () => {
  let srv: ServerHandle;
  const clients: ApiClient[] = [];
  beforeAll(async () => {
    srv = await startServer({ backend: 'memory' });
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) await c.close();
    await srv.stop();
  }, 60_000);

  for (const contentType of ['application/vnd.platform.protobuf', 'application/json'] as const) {
    it(`reads and writes through the admin platformconfig (${contentType}, rate-limit options 0 = defaults)`, async () => {
      const client = await createApiClient({ platformconfig: join(srv.dir, 'admin.conf'), platformApiQps: 0, platformApiBurst: 0, eventQps: 0, eventBurst: 0, contentType, log: quiet });
      clients.push(client);
      expect(client.connection.server).toBe(srv.url);
      const name = `cm-${contentType.length}`;
      const cms = client.rest.resource(RESOURCES.configMaps, 'default');
      const created = await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } });
      expect(created['data']).toEqual({ a: '1' });
      const page = await cms.list({});
      expect(page.items.map((o) => (o['metadata'] as { name: string }).name)).toContain(name);
      await cms.delete(name);
    });
  }

  it('a file that is not a platformconfig is a ClientConfigError naming it', async () => {
    const bad = join(srv.dir, 'not-a-config.yaml');
    await writeFile(bad, 'kind: Pod\n');
    const err = await createApiClient({ platformconfig: bad, platformApiQps: 0, platformApiBurst: 0, eventQps: 0, eventBurst: 0, contentType: 'application/json', log: quiet }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientConfigError);
    expect((err as ClientConfigError).file).toBe(bad);
  });
});
