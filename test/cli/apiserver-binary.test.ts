// bin/platform-apiserver.js as an operator runs it (`npm test` builds dist/
// first): bad flags and values exit 1 with one error naming the flag; --help
// and --version exit 0; a started server writes its platformconfig, serves,
// and exits 0 on SIGTERM.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/agent-process.js';

const BIN = join(REPO, 'bin/platform-apiserver.js');
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: REPO, timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : null;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('platform-apiserver binary', () => {
  it.each([
    [['--no-such-flag'], "Error: unknown flag: --no-such-flag\nRun 'platform-apiserver --help' for usage.\n"],
    [['--secure-port=abc'], /^Error: invalid argument "abc" for "--secure-port" flag: /],
    [['--feature-gates=Nope=true'], 'Error: invalid platform-apiserver options: invalid argument for "--feature-gates" flag: unrecognized feature gate: Nope\n'],
    [['--tls-cert-file=/x.crt'], 'Error: invalid platform-apiserver options: --tls-private-key-file: --tls-cert-file and --tls-private-key-file must be given together\n'],
  ])('%j → exit 1 naming the flag', async (args, want) => {
    const r = await run(args);
    expect(r.code).toBe(1);
    if (typeof want === 'string') expect(r.stderr).toBe(want);
    else expect(r.stderr).toMatch(want);
    expect(r.stdout).toBe('');
  });
  it('--help and --version exit 0', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage:\n  platform-apiserver [flags]');
    expect(help.stdout).toContain('--max-resource-write-bytes');
    const version = await run(['--version']);
    expect(version).toMatchObject({ code: 0, stdout: expect.stringMatching(/^platform-apiserver v1\.28\.0-platform\.\d+\.\d+\.\d+\n$/) });
  });
  it('a start failure (unreadable --client-ca-file) exits 1 with a line naming the flag', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiserver-bin-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const r = await run(['--bind-address=127.0.0.1', '--secure-port=0', `--cert-dir=${dir}`, `--client-ca-file=${join(dir, 'missing.crt')}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/platform-apiserver failed.*--client-ca-file .*missing\.crt/);
  });
  it('serves, writes the admin platformconfig, and exits 0 on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiserver-bin-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const conf = join(dir, 'admin.conf');
    const child = spawn(process.execPath, [BIN, '--bind-address=127.0.0.1', '--secure-port=0', `--cert-dir=${join(dir, 'certs')}`, `--admin-platformconfig=${conf}`], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    cleanups.push(() => void child.kill('SIGKILL'));
    let out = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not serving within 20 s:\n${out}`)), 20_000);
      const onData = (s: Buffer): void => {
        out += s.toString();
        if (out.includes('platform-apiserver is serving')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
    });
    expect(existsSync(conf)).toBe(true);
    const version = await new Promise<string>((resolve, reject) => execFile('kubectl', ['--kubeconfig', conf, 'get', '--raw', '/version'], { timeout: 30_000 }, (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout))));
    expect(JSON.parse(version)).toMatchObject({ major: '1', minor: '28' });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toContain('platform-apiserver stopped');
  });
});
