// A private etcd for a benchmark run: Debian's /usr/bin/etcd on loopback with
// free client and peer ports and a temp data dir, removed at stop.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchError } from './common.mjs';
import { freePort } from './proc.mjs';

export async function startBenchEtcd(binary = process.env.ETCD_BINARY ?? '/usr/bin/etcd') {
  const dir = mkdtempSync(join(tmpdir(), 'bench-etcd-'));
  const [client, peer] = [await freePort(), await freePort()];
  const endpoint = `http://127.0.0.1:${client}`;
  const proc = spawn(binary, [
    '--name=bench', `--data-dir=${dir}`,
    `--listen-client-urls=${endpoint}`, `--advertise-client-urls=${endpoint}`,
    `--listen-peer-urls=http://127.0.0.1:${peer}`, `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
    `--initial-cluster=bench=http://127.0.0.1:${peer}`, '--log-level=warn', '--logger=zap', '--quota-backend-bytes=4294967296',
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  proc.stdout.on('data', (d) => (log += d.toString()));
  proc.stderr.on('data', (d) => (log += d.toString()));
  let failed;
  proc.once('exit', (code) => (failed = new BenchError(`etcd exited (${code}) before it was ready:\n${log.slice(-2000)}`)));
  proc.once('error', (e) => (failed = new BenchError(`etcd: ${e.message} (install Debian's etcd-server)`)));
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (failed) throw failed;
    const healthy = await fetch(`${endpoint}/health`).then((r) => r.json()).then((j) => j.health === 'true', () => false);
    if (healthy) break;
    if (Date.now() > deadline) throw new BenchError(`etcd: not healthy within 20 s:\n${log.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const exited = new Promise((r) => proc.once('exit', r));
  return {
    endpoint,
    pid: proc.pid,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
    killNow() {
      try {
        proc.kill('SIGKILL');
      } catch {
        /* gone */
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
