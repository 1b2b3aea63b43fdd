// platform-apiserver for bench/cluster.mjs: the built binary in memory on a
// loopback port, with a static token file holding the agent's node identity
// (system:node:<node>, group system:nodes, so node authorization and
// NodeRestriction apply to everything the agent does) and its request log
// (-v=3: one line per request, with the user, when the response ends; a
// watch when it ends) written to a file, so the agent's requests can be
// counted on the server's side too. The admin credential comes from
// --admin-platformconfig. Every process and file is removed by the clean-up
// registered in `closers` (synchronous, idempotent).
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool, request } from 'undici';
import { parse as parseYaml } from 'yaml';
import { BenchError, sleep } from './common.mjs';
import { freePort } from './proc.mjs';
import { REPO } from './session.mjs';

const READY_TIMEOUT_MS = 30_000;

/**
 * Starts the server under `dir` (created). `nodeName`: the agent's node.
 * Returns { url, port, ca, pid, logFile, nodeToken, call(method, path, {body, contentType}) -> {status, json}, stop() }.
 */
export async function startClusterApiServer({ dir, nodeName, closers, connections = 110 }) {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const nodeToken = `bench-node-${process.pid}-${Date.now()}`;
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, `${nodeToken},system:node:${nodeName},uid-node-${nodeName},"system:nodes"\n`, { mode: 0o600 });
  const adminConf = join(dir, 'admin.conf');
  const logFile = join(dir, 'apiserver.log');
  const args = [join(REPO, 'bin/platform-apiserver.js'), '--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${join(dir, 'certs')}`, `--admin-platformconfig=${adminConf}`, `--token-auth-file=${tokens}`, '--v=3'];
  const fd = openSync(logFile, 'a');
  const proc = spawn(process.execPath, args, { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  proc.once('error', () => {});
  const exited = new Promise((r) => proc.once('exit', r));
  let pool;
  closers.push(() => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  });
  const tail = () => {
    try {
      return readFileSync(logFile, 'utf8').slice(-4000);
    } catch {
      return '(no log)';
    }
  };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let admin;
  for (let i = 0; admin === undefined; i++) {
    if (proc.exitCode !== null) throw new BenchError(`platform-apiserver exited (${proc.exitCode}):\n${tail()}`);
    if (Date.now() > deadline || i > 1000) throw new BenchError(`platform-apiserver: no admin platformconfig within ${READY_TIMEOUT_MS} ms:\n${tail()}`);
    try {
      admin = parseYaml(readFileSync(adminConf, 'utf8'));
    } catch {
      await sleep(100);
    }
  }
  const cluster = admin.clusters[0].cluster;
  const ca = Buffer.from(cluster['certificate-authority-data'], 'base64').toString();
  const url = cluster.server;
  const token = admin.users[0].user.token;
  pool = new Pool(url, { connections, connect: { ca } });
  /** One admin request; resolves { status, json } (json undefined for an empty or non-JSON body); never throws for a status. */
  const call = async (method, path, { body, contentType = 'application/json', signal } = {}) => {
    const res = await request(`${url}${path}`, { method, dispatcher: pool, signal, headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': contentType }) }, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }) });
    const text = await res.body.text();
    let json;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, json, text };
  };
  for (let i = 0; ; i++) {
    const r = await call('GET', '/readyz').catch(() => undefined);
    if (r?.status === 200) break;
    if (Date.now() > deadline || i > 1000) throw new BenchError(`platform-apiserver: /readyz not 200 within ${READY_TIMEOUT_MS} ms:\n${tail()}`);
    await sleep(100);
  }
  /** A platformconfig for the agent: `server` (e.g. the byte-counting proxy's URL), the server's CA, the node's token. */
  const nodeConfig = (file, server) => {
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        `- name: bench\n  cluster:\n    server: ${server}\n    certificate-authority-data: ${Buffer.from(ca).toString('base64')}`,
        'users:',
        `- name: node\n  user:\n    token: ${nodeToken}`,
        'contexts:',
        '- name: bench\n  context:\n    cluster: bench\n    user: node',
        'current-context: bench',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    return file;
  };
  return {
    url,
    port,
    ca,
    token,
    pid: proc.pid,
    logFile,
    call,
    nodeConfig,
    tail,
    async stop() {
      await pool.close().catch(() => {});
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      let timer;
      await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 10_000)))]);
      clearTimeout(timer);
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    },
    removeDir: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * The server's request log lines of `user` (the -v=3 "HTTP" lines), from
 * byte `from` of the log on: { count, byVerb: {"VERB resource[/sub]": n}, watches, end } —
 * `end` is the offset to pass next time. A watch logs when it ends.
 */
export function countServerRequests(logFile, user, from = 0) {
  const text = readFileSync(logFile).subarray(from).toString('utf8');
  const cut = text.lastIndexOf('\n') + 1; // a line still being written counts next time
  const byVerb = {};
  let count = 0;
  let watches = 0;
  for (const line of text.slice(0, cut).split('\n')) {
    if (!/\] "?HTTP"? /.test(line) || !line.includes(`user="${user}"`)) continue;
    count++;
    const verb = /\bverb="([A-Z]+)"/.exec(line)?.[1] ?? '?';
    const uri = /\bURI="([^"]*)"/.exec(line)?.[1] ?? '';
    const watch = /[?&]watch=(1|true)\b/.test(uri);
    if (watch) watches++;
    // "PUT leases", "PATCH pods/status", "WATCH pods": the verb and the resource (with its subresource).
    const path = uri.split('?')[0].split('/').filter(Boolean);
    const at = path.findIndex((p, i) => i > 0 && (path[i - 1] === 'namespaces' ? false : /^(pods|nodes|leases|events|configmaps|secrets|serviceaccounts|certificatesigningrequests|clustertrustbundles)$/.test(p)));
    const resource = at < 0 ? uri.split('?')[0] : `${path[at]}${path[at + 2] === undefined ? '' : `/${path[at + 2]}`}`;
    const key = `${watch ? 'WATCH' : verb} ${resource}`;
    byVerb[key] = (byVerb[key] ?? 0) + 1;
  }
  return { count, byVerb, watches, end: from + Buffer.byteLength(text.slice(0, cut)) };
}
