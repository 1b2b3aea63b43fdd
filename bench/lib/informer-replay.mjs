// Starts the replay server (bench/lib/informer-replay-server.mjs) in its own
// process for one contender of bench/informer.mjs, so the contender's CPU,
// the replay's CPU and the bench's own stay apart. One replay per contender:
// each gets the recorded backlog once per representation.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BenchError } from './common.mjs';
import { REPO } from './session.mjs';

/**
 * `spec` as the replay server reads it (see there). Registers the kill in
 * `cleanups`; resolves { url, pid, stop() } once it listens, where stop()
 * resolves the replay's stats ({ replays, heldOpen, unauthorized, notFound }).
 */
export async function startReplay({ cleanups, dir, name, spec }) {
  const specFile = join(dir, `replay-${name}.json`);
  writeFileSync(specFile, JSON.stringify(spec));
  const child = spawn(process.execPath, [join(REPO, 'bench/lib/informer-replay-server.mjs'), specFile], { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  cleanups.push(() => child.exitCode === null && child.kill('SIGKILL'));
  let err = '';
  child.stderr.on('data', (d) => (err = (err + d).slice(-4000)));
  const exited = new Promise((r) => child.once('exit', r));
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new BenchError(`replay server: not listening within 30 s:\n${err}`)), 30_000);
    child.once('message', (m) => (clearTimeout(timer), resolve(m.port)));
    child.once('exit', (code) => (clearTimeout(timer), reject(new BenchError(`replay server exited (${code}) before listening:\n${err}`))));
  });
  return {
    url: `https://127.0.0.1:${port}`,
    pid: child.pid,
    async stop() {
      const stats = new Promise((resolve) => {
        child.once('message', (m) => resolve(m.stats));
        child.once('exit', () => resolve(undefined));
      });
      child.send('stop');
      const s = await stats;
      await exited;
      if (s === undefined) throw new BenchError(`replay server exited without its stats:\n${err}`);
      return s;
    },
  };
}
