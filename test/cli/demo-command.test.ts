// packaging/local-runtime/demo.sh runs the agent as systemd does (bin/agent.js
// as the executable, so the launcher's environment and node options of its
// first line apply) and prints exactly the command it runs. Checked against
// the running process in /proc, with AGENT_DEMO_ENDPOINT naming a runtime
// socket that does not exist: no containerd is started, and the agent waits
// for the runtime until the test stops the script.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { launcherOptions } from '../../packaging/launcher-options.mjs';
import { AGENT_BIN, REPO, tempDir } from '../helpers/agent-process.js';
import { childrenOf } from '../helpers/agent-daemon.js';

const DEMO = join(REPO, 'packaging/local-runtime/demo.sh');
const cleanups: (() => void | Promise<void>)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Starts demo.sh; `line(re)` resolves with the first stderr line matching re (bounded). */
function startDemo(args: readonly string[], env: Record<string, string>) {
  const child: ChildProcess = spawn('bash', [DEMO, ...args], { env: { PATH: process.env['PATH'], ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stderr!.setEncoding('utf8').on('data', (s: string) => {
    stderr += s;
    for (const w of [...waiters]) w();
  });
  child.stdout!.resume();
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  let done = false;
  void exited.then(() => {
    done = true;
    for (const w of [...waiters]) w();
  });
  cleanups.push(async () => {
    if (done) return;
    // The agent first (SIGKILL skips the script's trap), then the script.
    for (const c of childrenOf(child.pid!)) process.kill(c.pid, 'SIGKILL');
    child.kill('SIGKILL');
    await exited;
  });
  const line = (re: RegExp, timeoutMs = 10_000): Promise<string> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const hit = stderr.split('\n').slice(0, -1).find((l) => re.test(l));
        if (hit !== undefined) finish(() => resolve(hit));
        else if (done) finish(() => reject(new Error(`demo.sh exited before writing ${re}:\n${stderr}`)));
      };
      const timer = setTimeout(() => finish(() => reject(new Error(`no line ${re} within ${timeoutMs} ms:\n${stderr}`))), timeoutMs);
      const finish = (settle: () => void): void => {
        clearTimeout(timer);
        waiters.delete(check);
        settle();
      };
      waiters.add(check);
      check();
    });
  return { child, line, exited, stderr: () => stderr };
}

/** The words of a shell command line as bash reads them (undoing printf %q). */
function shellWords(command: string): string[] {
  return execFileSync('bash', ['-c', `printf '%s\\0' ${command}`], { encoding: 'utf8' }).split('\0').slice(0, -1);
}

const nulList = (text: string): string[] => text.split('\0').filter((w) => w !== '');

describe('demo.sh', () => {
  it('runs bin/agent.js as an executable (the launcher options apply) and prints exactly that command', async () => {
    const t = tempDir('agent-demo-');
    cleanups.push(t.cleanup);
    const endpoint = `unix://${join(t.dir, 'absent.sock')}`;
    const demo = startDemo([`--root-dir=${join(t.dir, 'root')}`, '--healthz-port=0'], { AGENT_DEMO_ENDPOINT: endpoint });
    const printed = await demo.line(/^demo\.sh: running: /);
    await demo.line(/\] Waiting for the container runtime /);

    const m = /^demo\.sh: running: cd (.+?) && (.+)$/.exec(printed);
    expect(m, printed).not.toBeNull();
    expect(shellWords(m![1]!)).toEqual([REPO]);
    const words = shellWords(m![2]!);

    const agents = childrenOf(demo.child.pid!);
    expect(agents, demo.stderr()).toHaveLength(1);
    const pid = agents[0]!.pid;
    const argv = nulList(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
    const environ = nulList(readFileSync(`/proc/${pid}/environ`, 'utf8'));
    const launcher = launcherOptions(AGENT_BIN);

    // What the kernel runs for an executable bin/agent.js: env execs node with the first line's options.
    expect(argv).toEqual([expect.stringMatching(/(^|\/)node$/), ...launcher.nodeArgs, ...words]);
    expect(readlinkSync(`/proc/${pid}/cwd`)).toBe(REPO);
    for (const [k, v] of Object.entries(launcher.env)) expect(environ).toContain(`${k}=${v}`);
    expect(words[0]).toBe('bin/agent.js');
    expect(words).toContain(`--container-runtime-endpoint=${endpoint}`);
    expect(words.slice(-2)).toEqual([`--root-dir=${join(t.dir, 'root')}`, '--healthz-port=0']);

    // Stopping the script stops the agent (its trap), and nothing else is torn down.
    demo.child.kill('SIGTERM');
    expect(await demo.exited).toBe(143);
    expect(demo.stderr()).toMatch(/\] shutting down; send the signal again to exit immediately signal="SIGTERM"/);
    expect(demo.stderr()).not.toMatch(/stopping the private containerd/);
  });
});
