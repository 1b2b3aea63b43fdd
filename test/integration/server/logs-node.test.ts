// /logs/ over HTTP (a loopback harness standing in for the HTTP core): files
// and listings under the node log directory, and nothing outside it, however
// the path is written.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimeService } from '../../../src/cri/types.js';
import { logRoutes } from '../../../src/server/logs/index.js';
import { testLogger } from '../../helpers/test-logger.js';
import { get, serveRoutes, type Harness } from './logs-harness.js';

const top = mkdtempSync(join(tmpdir(), 'agent-nodelogs-'));
const root = join(top, 'log');
const SECRET = 'outside the log directory';

let h: Harness;
beforeAll(async () => {
  mkdirSync(join(root, 'pods', 'ns_p_u'), { recursive: true });
  writeFileSync(join(root, 'syslog'), 'node says hello\n');
  writeFileSync(join(root, 'pods', 'ns_p_u', 'x.log'), 'x\n');
  writeFileSync(join(root, 'with space.log'), 'spaced\n');
  writeFileSync(join(top, 'secret'), SECRET);
  mkdirSync(join(top, 'elsewhere'));
  writeFileSync(join(top, 'elsewhere', 'f'), SECRET);
  symlinkSync(join(top, 'secret'), join(root, 'escape'));
  symlinkSync(join(top, 'elsewhere'), join(root, 'escapedir'));
  symlinkSync('../secret', join(root, 'relescape'));
  symlinkSync('syslog', join(root, 'inside'));
  h = await serveRoutes(logRoutes({ status: { all: () => [] }, runtime: {} as RuntimeService, podLogsDir: join(root, 'pods'), nodeLogDir: root, log: testLogger() }));
});
afterAll(async () => {
  await h.close();
  rmSync(top, { recursive: true, force: true });
});

describe('/logs/', () => {
  it('serves a file with its length and type', async () => {
    const r = await get(h.port, '/logs/syslog');
    expect(r.status).toBe(200);
    expect(r.body).toBe('node says hello\n');
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(r.headers['content-length']).toBe('16');
  });

  it('answers HEAD with the headers only', async () => {
    const r = await get(h.port, '/logs/syslog', 'HEAD');
    expect(r.status).toBe(200);
    expect(r.headers['content-length']).toBe('16');
    expect(r.body).toBe('');
  });

  it('lists a directory, and redirects to its slash', async () => {
    const r = await get(h.port, '/logs/');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
    for (const link of ['<a href="pods/">pods/</a>', '<a href="syslog">syslog</a>', '<a href="with%20space.log">with space.log</a>']) expect(r.body).toContain(link);
    const redirect = await get(h.port, '/logs/pods');
    expect(redirect.status).toBe(301);
    expect(redirect.headers.location).toBe('/logs/pods/');
    expect((await get(h.port, '/logs/pods/')).body).toContain('<a href="ns_p_u/">ns_p_u/</a>');
    expect((await get(h.port, '/logs/pods/ns_p_u/x.log')).body).toBe('x\n');
    expect((await get(h.port, '/logs/with%20space.log')).body).toBe('spaced\n');
  });

  it('follows a symlink that stays inside', async () => {
    expect((await get(h.port, '/logs/inside')).body).toBe('node says hello\n');
  });

  it.each([
    ['/logs/escape', 403],
    ['/logs/relescape', 403],
    ['/logs/escapedir/f', 403],
    ['/logs/escapedir/', 403],
    ['/logs/nope', 404],
    ['/logs/syslog/', 301],
    ['/logs/..%2fsecret', 400],
    ['/logs/pods/..%2F..%2Fsecret', 400],
    ['/logs/%2e%2e%2fsecret', 400],
    ['/logs/..%5csecret', 400],
    ['/logs/%00', 400],
    ['/logs/%zz', 400],
  ])('%s → %i', async (path, status) => {
    const r = await get(h.port, path);
    expect(r.status).toBe(status);
    expect(r.body).not.toContain(SECRET);
  });

  it.each(['/logs/../secret', '/logs/%2e%2e/secret', '/logs/%2E%2E/%2E%2E/' + top.slice(1) + '/secret', '/logs//' + top.slice(1) + '/secret'])('never serves %s', async (path) => {
    const r = await get(h.port, path);
    expect([400, 403, 404]).toContain(r.status);
    expect(r.body).not.toContain(SECRET);
  });
});
