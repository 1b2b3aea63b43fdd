// One benchmark session on a private containerd with the agent started as its
// executable starts (bin/agent.js's `#!/usr/bin/env -S ...` line): used by
// bench/sources.mjs. Everything it starts or creates is taken down by
// `cleanupSync()`, which is idempotent and synchronous so the exit hook and
// the signal handlers can call it.
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launcherOptions } from '../../packaging/launcher-options.mjs';
import { BenchError, ms, now, sleep } from './common.mjs';
import { mountsUnder, mustRun } from './proc.mjs';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const LOCAL_RUNTIME = join(REPO, 'packaging/local-runtime');
const CONTAINERD_SH = join(LOCAL_RUNTIME, 'containerd.sh');
const IMAGES_DIR = join(REPO, '.tmp/images');
export const AGENT_BIN = join(REPO, 'bin/agent.js');
const READY_LINE = 'all components ready';

/** `name` says whose messages these are (e.g. "sources benchmark"). */
export function createSession(name) {
  const s = {
    tmp: mkdtempSync(join(os.tmpdir(), `${name.split(' ')[0]}-bench-`)),
    rtDir: undefined,
    agent: undefined, // { child, exited, logFile, args, launchEnv, gone }
    cri: undefined,
    logDirs: new Set(), // pod log directories under /var/log/pods (ours only)
    closers: [], // synchronous clean-ups of other parts (servers)
    cleaned: false,
  };

  /** Builds the local images (cached), starts the private containerd and connects the project's CRI client. */
  async function startRuntime() {
    s.rtDir = join(s.tmp, 'rt');
    await mustRun('build-images', process.execPath, [join(LOCAL_RUNTIME, 'build-images.mjs'), '--out', IMAGES_DIR], { timeoutMs: 300_000 });
    const started = await mustRun('containerd.sh start', 'bash', [CONTAINERD_SH, 'start', s.rtDir, '--images', IMAGES_DIR], { timeoutMs: 120_000 });
    const endpoint = started.stdout.trim().split('\n').pop();
    const cri = await import(pathToFileURL(join(REPO, 'dist/cri/grpc-client.js')).href);
    s.cri = await cri.createCriRuntime({ runtimeEndpoint: endpoint, requestTimeoutMs: 60_000, connectTimeoutMs: 15_000, log: { info() {}, warn() {}, error() {} } });
    return endpoint;
  }

  /** Starts `node [launcher options] [nodeArgs] bin/agent.js [args]`; resolves once its log says it is ready. */
  async function startAgent(args, { nodeArgs = [], readyTimeoutMs = 60_000 } = {}) {
    const logFile = join(s.tmp, 'agent.log');
    const launch = launcherOptions(AGENT_BIN);
    // The node servers on loopback only, their self-signed certificate under the session's directory; no main port unless asked for.
    const has = (flag) => args.some((a) => a === `--${flag}` || a.startsWith(`--${flag}=`));
    const serving = [...(has('port') || has('enable-server') ? [] : ['--enable-server=false']), ...(has('read-only-port') ? [] : ['--read-only-port=0']), ...(has('address') ? [] : ['--address=127.0.0.1']), ...(has('cert-dir') ? [] : [`--cert-dir=${join(s.tmp, 'pki')}`])];
    const argv = [...launch.nodeArgs, ...nodeArgs, AGENT_BIN, ...args, ...serving];
    const fd = openSync(logFile, 'a');
    const child = spawn(process.execPath, argv, { cwd: REPO, stdio: ['ignore', fd, fd], env: { ...process.env, ...launch.env } });
    closeSync(fd);
    const a = { child, logFile, args: argv, launchEnv: launch.env, gone: false };
    a.exited = new Promise((res) => child.once('exit', (code, signal) => res({ code, signal })));
    a.exited.then((x) => (a.gone = x));
    child.once('error', () => {});
    s.agent = a;
    const t0 = now();
    for (let i = 0; i < 10_000 && !a.gone && ms(t0, now()) < readyTimeoutMs; i++) {
      if (readFileSync(logFile, 'utf8').includes(READY_LINE)) return { readyMs: ms(t0, now()), pid: child.pid };
      await sleep(50);
    }
    throw new BenchError(`the agent ${a.gone ? 'exited' : `was not ready within ${readyTimeoutMs} ms`}\n  command: node ${argv.join(' ')}\n--- agent log (tail) ---\n${logTail()}`);
  }

  function logTail(lines = 30) {
    try {
      return readFileSync(s.agent.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n').slice(-8000);
    } catch {
      return '(no log)';
    }
  }

  /** SIGTERM, then SIGKILL after `timeoutMs`; resolves with how it exited (undefined when it was gone already). */
  async function stopAgent(timeoutMs = 15_000) {
    const a = s.agent;
    if (!a || a.gone || a.child.exitCode !== null || a.child.signalCode !== null) return a?.gone || undefined;
    a.child.kill('SIGTERM');
    let timer;
    const res = await Promise.race([a.exited, new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
    if (res !== undefined) return res;
    a.child.kill('SIGKILL');
    await a.exited;
    return { code: null, signal: 'SIGKILL (after SIGTERM was ignored)' };
  }

  function cleanupSync() {
    if (s.cleaned) return;
    s.cleaned = true;
    for (const close of s.closers) {
      try {
        close();
      } catch {
        /* best effort */
      }
    }
    try {
      s.cri?.close();
    } catch {
      /* closed */
    }
    const a = s.agent;
    if (a && a.child.exitCode === null && a.child.signalCode === null) {
      try {
        a.child.kill('SIGKILL');
      } catch {
        /* gone */
      }
    }
    if (s.rtDir) {
      try {
        execFileSync('bash', [CONTAINERD_SH, 'stop', s.rtDir], { stdio: 'ignore', timeout: 120_000 });
      } catch {
        process.stderr.write(`${name}: could not stop the private containerd under ${s.rtDir}; run: ${CONTAINERD_SH} stop ${s.rtDir}\n`);
      }
    }
    for (const d of s.logDirs) rmSync(d, { recursive: true, force: true });
    if (mountsUnder(s.tmp).length === 0) rmSync(s.tmp, { recursive: true, force: true });
    else process.stderr.write(`${name}: left ${s.tmp} (still mounted: ${mountsUnder(s.tmp).join(', ')})\n`);
  }

  const dir = (...parts) => {
    const d = join(s.tmp, ...parts);
    mkdirSync(d, { recursive: true });
    return d;
  };

  return { state: s, startRuntime, startAgent, stopAgent, logTail, cleanupSync, dir };
}
