// Starts platform-apiserver the way an operator does — the built binary with
// flags — on a loopback port, over the chosen backend, and hands the suite
// clients for the admin (from --admin-platformconfig) and for the users of a
// static token file. One server per describe block; every process and
// directory is removed afterwards.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { Agent } from 'undici';
import { ApiClient, tlsDispatcher } from './api-client.js';
import { freePort } from '../../helpers/net.js';

export const REPO = new URL('../../../', import.meta.url).pathname;
const BIN = join(REPO, 'bin/platform-apiserver.js');

/** Users of the static token file every server gets: token → identity. */
export const USERS = {
  alice: { token: 'alice-token', uid: 'uid-alice', groups: ['devs'] },
  bob: { token: 'bob-token', uid: 'uid-bob', groups: [] as string[] },
  node1: { token: 'node1-token', uid: 'uid-node1', groups: ['system:nodes'], name: 'system:node:node1' },
  /** The node of the end-to-end agent (test/e2e/helpers/agent-node.ts NODE). */
  e2eNode: { token: 'e2e-node-token', uid: 'uid-e2e-node', groups: ['system:nodes'], name: 'system:node:e2e-node' },
  /** A node's bootstrap credential (csr-signing.test.ts). */
  bootstrap: { token: 'bootstrap-token', uid: 'uid-bootstrap', groups: ['system:bootstrappers'], name: 'system:bootstrap:abcdef' },
} as const;

export type Backend = 'memory' | 'etcd';

export interface ServerOptions {
  backend: Backend;
  /** Required for the etcd backend. */
  etcdEndpoint?: string;
  /** Unique etcd key prefix, so several servers over one etcd share or separate data on purpose. */
  etcdPrefix?: string;
  featureGates?: string;
  extraArgs?: string[];
  /** Test-only fault API (PLATFORM_APISERVER_TEST_FAULTS=1). */
  faults?: boolean;
  /** Listen on this port instead of a free one (a restart on the same address: pass the halted server's `port`). */
  port?: number;
  /** The configuration directory of a halted server: its certificates (so clients trusting its CA still do) and token file are reused. */
  dir?: string;
}

export interface ServerHandle {
  url: string;
  port: number;
  ca: string;
  dir: string;
  admin: ApiClient;
  user(name: keyof typeof USERS): ApiClient;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL (crash) and wait. */
  kill(): Promise<void>;
  /**
   * Stops the process (SIGTERM, or SIGKILL for a crash) but keeps `dir`, so
   * startServer({ ...opts, port, dir }) brings the same server back: same
   * address, CA and users (and, over etcd with the same prefix, the same objects).
   */
  halt(signal?: 'SIGTERM' | 'SIGKILL'): Promise<number | null>;
  stderr(): string;
  proc: ChildProcess;
}


async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs: number, proc: ChildProcess, log: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`platform-apiserver exited (${proc.exitCode ?? proc.signalCode}) before ${what}:\n${log()}`);
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`platform-apiserver: no ${what} within ${timeoutMs} ms:\n${log()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function startServer(opts: ServerOptions): Promise<ServerHandle> {
  const dir = opts.dir ?? (await mkdtemp(join(tmpdir(), 'apiserver-conf-')));
  const tokenFile = join(dir, 'tokens.csv');
  await writeFile(
    tokenFile,
    Object.entries(USERS)
      .map(([name, u]) => `${u.token},${'name' in u ? u.name : name},${u.uid},"${u.groups.join(',')}"`)
      .join('\n') + '\n',
  );
  const port = opts.port ?? (await freePort());
  const adminConf = join(dir, 'admin.conf');
  // A restarted server writes a new admin token: the old file must not be read meanwhile.
  if (opts.dir !== undefined) await rm(adminConf, { force: true });
  const args = [
    BIN,
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    `--cert-dir=${join(dir, 'certs')}`,
    `--token-auth-file=${tokenFile}`,
    `--admin-platformconfig=${adminConf}`,
    ...(opts.backend === 'etcd' ? [`--etcd-servers=${opts.etcdEndpoint ?? ''}`, `--etcd-prefix=${opts.etcdPrefix ?? `/conf-${port}`}`] : []),
    ...(opts.featureGates === undefined ? [] : [`--feature-gates=${opts.featureGates}`]),
    // The suite's namespaces start empty: the root-CA publisher runs only where a test asks for it (csr-signing.test.ts).
    ...((opts.extraArgs ?? []).some((a) => a.startsWith('--controllers')) ? [] : ['--controllers=*,-root-ca-cert-publisher']),
    ...(opts.extraArgs ?? []),
  ];
  const env = { ...process.env, ...(opts.faults === true ? { PLATFORM_APISERVER_TEST_FAULTS: '1' } : {}) };
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let log = '';
  proc.stdout?.on('data', (d: Buffer) => (log += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const stderr = (): string => log.slice(-8000);
  let dispatcher: Agent | undefined;
  try {
    const conf = await waitFor('admin platformconfig', async () => parse(await readFile(adminConf, 'utf8')) as PlatformConfig, 20_000, proc, stderr);
    const cluster = conf.clusters[0]!.cluster;
    const ca = Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8');
    dispatcher = tlsDispatcher(ca);
    const admin = new ApiClient(cluster.server, dispatcher, conf.users[0]!.user.token);
    await waitFor('/readyz', async () => ((await admin.get('/readyz')).status === 200 ? true : undefined), 20_000, proc, stderr);
    const d = dispatcher;
    let halted = false;
    return {
      url: cluster.server,
      port,
      ca,
      dir,
      admin,
      user: (name) => admin.as(USERS[name].token),
      proc,
      stderr,
      async stop() {
        proc.kill('SIGTERM');
        const code = await exited;
        if (!halted) await d.close();
        await rm(dir, { recursive: true, force: true });
        return code;
      },
      async kill() {
        proc.kill('SIGKILL');
        await exited;
        await d.close();
        await rm(dir, { recursive: true, force: true });
      },
      async halt(signal = 'SIGTERM') {
        proc.kill(signal);
        const code = await exited;
        if (!halted) await d.close();
        halted = true;
        return code;
      },
    };
  } catch (err) {
    proc.kill('SIGKILL');
    await exited;
    await dispatcher?.close();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

interface PlatformConfig {
  clusters: Array<{ name: string; cluster: { server: string; 'certificate-authority-data': string } }>;
  users: Array<{ name: string; user: { token: string } }>;
}
