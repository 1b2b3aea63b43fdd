// Shared by the platform-apiserver benches (apiserver.mjs, list-pages.mjs):
// start the built server on a loopback port with the test-only fault API
// (it reports the heap after a full GC), and the bare-server floor that
// answers a fixed body over node:http or node:https.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool, request } from 'undici';
import { parse as parseYaml } from 'yaml';
import { BenchError, now, ms } from './common.mjs';
import { freePort } from './proc.mjs';
import { REPO } from './session.mjs';

/**
 * Starts `bin` (default: this checkout's bin/platform-apiserver.js) and waits
 * for its admin platformconfig. Registers its kill in `cleanups`. Returns
 * { url, ca, token, pid, tls: {cert, key, ca}, call(method, path, {body, accept, contentType}), stop() }.
 */
export async function startApiServerProcess({ cleanups, extraArgs = [], nodeArgs = [], bin = join(REPO, 'bin/platform-apiserver.js'), connections = 36 }) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-apiserver-'));
  const port = await freePort();
  const conf = join(dir, 'admin.conf');
  const proc = spawn(process.execPath, ['--expose-gc', ...nodeArgs, bin, '--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${dir}/certs`, `--admin-platformconfig=${conf}`, ...extraArgs], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, PLATFORM_APISERVER_TEST_FAULTS: '1' },
  });
  let log = '';
  proc.stderr.on('data', (d) => (log = (log + d.toString()).slice(-4000)));
  const exited = new Promise((r) => proc.once('exit', r));
  cleanups.push(() => {
    if (proc.exitCode === null) proc.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  const deadline = Date.now() + 30_000;
  let admin;
  while (admin === undefined) {
    if (proc.exitCode !== null) throw new BenchError(`platform-apiserver exited (${proc.exitCode}):\n${log}`);
    if (Date.now() > deadline) throw new BenchError(`platform-apiserver: no admin platformconfig within 30 s:\n${log}`);
    try {
      admin = parseYaml(readFileSync(conf, 'utf8'));
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const cluster = admin.clusters[0].cluster;
  const ca = Buffer.from(cluster['certificate-authority-data'], 'base64').toString();
  const url = cluster.server;
  const token = admin.users[0].user.token;
  const pool = new Pool(url, { connections, connect: { ca } });
  const call = async (method, path, { body, accept = 'application/json', contentType = 'application/json' } = {}) => {
    const res = await request(`${url}${path}`, { method, dispatcher: pool, headers: { authorization: `Bearer ${token}`, accept, ...(body === undefined ? {} : { 'content-type': contentType }) }, ...(body === undefined ? {} : { body }) });
    const buf = Buffer.from(await res.body.arrayBuffer());
    if (res.statusCode >= 300) throw new BenchError(`${method} ${path}: ${res.statusCode} ${buf.toString().slice(0, 300)}`);
    return buf;
  };
  const certs = join(dir, 'certs');
  const tls = { cert: readFileSync(join(certs, 'apiserver.crt')), key: readFileSync(join(certs, 'apiserver.key')), ca: readFileSync(join(certs, 'apiserver-ca.crt')) };
  return {
    url, ca, token, pid: proc.pid, call, tls,
    async stop() {
      proc.kill('SIGTERM');
      await exited;
      await pool.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The floor: a bare node:http (or, with `tls`, node:https with the API
 * server's own certificate) server answering `body`, fetched `rounds` times
 * over one connection and timed as the server's pages are: until the last
 * byte arrives (no decode in the window). Returns the latencies in ms.
 */
export async function bodyFloor(body, rounds, tls) {
  const handler = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  };
  const server = tls === undefined ? createServer(handler) : createHttpsServer({ cert: tls.cert, key: tls.key }, handler);
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${server.address().port}`;
  const pool = new Pool(url, { connections: 1, ...(tls === undefined ? {} : { connect: { ca: tls.ca } }) });
  const lat = [];
  try {
    for (let i = 0; i < rounds; i++) {
      const t0 = now();
      const res = await request(`${url}/`, { dispatcher: pool });
      await res.body.arrayBuffer();
      lat.push(ms(t0, now()));
    }
  } finally {
    await pool.close();
    await new Promise((r) => server.close(r));
  }
  return lat;
}
