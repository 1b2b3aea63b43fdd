// The running agent's own log output, read from its pipes: klog-style text by
// default, JSON with --logging-format=json, -v / --vmodule gating, JSON split
// stream, and the option combinations rejected before the agent starts.
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/agent-process.js';
import {
  closeServer,
  freePort,
  killAllDaemons,
  listenOn,
  startAgent,
  type AgentDaemon,
} from '../helpers/agent-daemon.js';

const cleanups: (() => void | Promise<void>)[] = [];

afterEach(async () => {
  await killAllDaemons();
  for (const c of cleanups.splice(0).reverse()) await c();
});

const HEADER = /^[IWE]\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ \S+\] /;
const READY_TEXT = /\] all components ready /;
/** The agent's V(2) record: the configuration fields set by files and flags, with their sources. */
const CONFIG_MSG = 'Configuration set by files and flags';
const JSON_GATE = '--feature-gates=LoggingAlphaOptions=true';

interface JsonRecord {
  msg: string;
  component: string;
  ts: number;
  v?: number;
  [key: string]: unknown;
}

/** Starts a standalone agent (own root dir, ports) with the extra flags. */
async function launch(extra: readonly string[], opts: { healthzPort?: number } = {}): Promise<AgentDaemon> {
  const t = tempDir('agent-logging-');
  cleanups.push(t.cleanup);
  const healthzPort = opts.healthzPort ?? (await freePort());
  return startAgent([
    `--root-dir=${t.dir}`,
    `--port=${await freePort()}`,
    '--read-only-port=0',
    '--healthz-bind-address=127.0.0.1',
    `--healthz-port=${healthzPort}`,
    ...extra,
  ]);
}

/** SIGTERM once `ready` was logged; requires a clean exit. */
async function runUntilReady(agent: AgentDaemon, ready: RegExp, stream: 'stdout' | 'stderr' = 'stderr'): Promise<void> {
  await agent.waitForLine(ready, { stream });
  expect(agent.kill('SIGTERM')).toBe(true);
  expect(await agent.waitForExit(10_000)).toEqual({ code: 0, signal: null });
}

/** Every line of `text` as a JSON record with the keys every record must have. */
function records(text: string): JsonRecord[] {
  const lines = text.split('\n').filter((l) => l !== '');
  return lines.map((line) => {
    let rec: unknown;
    expect(() => (rec = JSON.parse(line)), `not JSON: ${line}`).not.toThrow();
    expect(rec, line).toMatchObject({ msg: expect.any(String), component: expect.any(String), ts: expect.any(Number) });
    return rec as JsonRecord;
  });
}

const msgs = (recs: readonly JsonRecord[]): string[] => recs.map((r) => r.msg);

describe('text format (default)', () => {
  it('writes klog-style lines to stderr only', async () => {
    const agent = await launch([]);
    await runUntilReady(agent, READY_TEXT);
    const lines = agent.lines();
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) expect(line).toMatch(HEADER);
    expect(agent.stderr.endsWith('\n')).toBe(true);
    expect(agent.stdout).toBe('');
    // The header carries the agent's pid and the component as its source.
    const start = lines.find((l) => l.includes('] Starting agent '));
    expect(start).toMatch(new RegExp(`^I\\d{4} \\S+ +${agent.pid} agent\\] Starting agent version="v[^"]+" mode="standalone"`));
    expect(lines.some((l) => / +\d+ healthz\] healthz server listening /.test(l))).toBe(true);
  });

  it('deprecated flags are reported as W lines of the running agent, before it starts', async () => {
    const agent = await launch([]);
    await runUntilReady(agent, READY_TEXT);
    const lines = agent.lines();
    const startAt = lines.findIndex((l) => l.includes('] Starting agent '));
    expect(startAt).toBeGreaterThan(0);
    for (const flag of ['port', 'read-only-port', 'healthz-bind-address', 'healthz-port']) {
      const at = lines.findIndex((l) => l.includes(`] Flag --${flag} has been deprecated`));
      expect(at, `warning for --${flag}`).toBeGreaterThanOrEqual(0);
      expect(lines[at]).toMatch(/^W\d{4} /);
      expect(at).toBeLessThan(startAt);
    }
    // --root-dir is not deprecated.
    expect(agent.stderr).not.toMatch(/--root-dir has been deprecated/);
    // Not the CLI's plain "Warning:" lines: the running agent logs them.
    expect(agent.stderr).not.toMatch(/^Warning:/m);
  });
});

describe('json format', () => {
  it('--logging-format=json writes one JSON record per line to stderr, with msg and component', async () => {
    const agent = await launch(['--logging-format=json']);
    await runUntilReady(agent, /"msg":"all components ready"/);
    expect(agent.stdout).toBe('');
    const recs = records(agent.stderr);
    expect(recs.find((r) => r.msg === 'Starting agent')).toMatchObject({ component: 'agent', v: 0, mode: 'standalone' });
    expect(recs.find((r) => r.msg === 'healthz server listening')).toMatchObject({ component: 'healthz' });
    expect(recs.find((r) => r.msg.startsWith('Flag --port has been deprecated'))).toMatchObject({ component: 'agent' });
    expect(msgs(recs).at(-1)).toBe('Agent stopped');
  });
});

describe('verbosity', () => {
  it('-v=0 writes no V(n>0) record; -v=4 writes the V(2) configuration summary', async () => {
    const quiet = await launch(['--logging-format=json', '-v=0']);
    const loud = await launch(['--logging-format=json', '-v=4', '--manifest-url-header=Authorization:Bearer s3cr3t']);
    await Promise.all([runUntilReady(quiet, /"msg":"all components ready"/), runUntilReady(loud, /"msg":"all components ready"/)]);

    const q = records(quiet.stderr);
    expect(q.filter((r) => (r.v ?? 0) > 0)).toEqual([]);
    expect(msgs(q)).not.toContain(CONFIG_MSG);

    const l = records(loud.stderr);
    const summary = l.find((r) => r.msg === CONFIG_MSG);
    expect(summary).toMatchObject({ v: 2, component: 'agent' });
    expect((summary!['settings'] as Record<string, unknown>)['healthzBindAddress']).toEqual({ value: '127.0.0.1', from: 'flag --healthz-bind-address' });
    expect((summary!['settings'] as Record<string, unknown>)['logging.verbosity']).toEqual({ value: 4, from: 'flag --v' });
    // Fields left at their default are not listed.
    expect(summary!['settings']).not.toHaveProperty('maxPods');
    // Header values may be credentials: only their names are logged.
    expect((summary!['settings'] as Record<string, unknown>)['staticPodURLHeader']).toEqual({ value: ['Authorization'], from: 'flag --manifest-url-header' });
    expect(loud.stderr).not.toContain('s3cr3t');
  });

  it('in text format -v gates the verbose line too, and --vmodule raises it per component', async () => {
    const quiet = await launch([]);
    const loud = await launch(['--v=2']);
    const byModule = await launch(['--vmodule=ag*=2']);
    const otherModule = await launch(['--vmodule=healthz=4']);
    await Promise.all([quiet, loud, byModule, otherModule].map((a) => runUntilReady(a, READY_TEXT)));
    const configLine = new RegExp(`^I\\d{4} .* agent\\] ${CONFIG_MSG} settings=\\{`, 'm');
    expect(quiet.stderr).not.toMatch(CONFIG_MSG);
    expect(loud.stderr).toMatch(configLine);
    expect(byModule.stderr).toMatch(configLine);
    expect(otherModule.stderr).not.toMatch(CONFIG_MSG);
  });
});

describe('rejected combinations', () => {
  it('--vmodule with --logging-format=json: exit 1 before starting', async () => {
    const agent = await launch(['--logging-format=json', '--vmodule=agent=2'], { healthzPort: 0 });
    expect(await agent.waitForExit(10_000)).toEqual({ code: 1, signal: null });
    expect(agent.stderr).toMatch(/^Error: .*--vmodule.*"json"/m);
    expect(agent.stderr).not.toMatch(/Starting agent/);
  });

  it('--log-json-split-stream without the LoggingAlphaOptions gate: exit 1 naming the gate', async () => {
    const agent = await launch(['--logging-format=json', '--log-json-split-stream'], { healthzPort: 0 });
    expect(await agent.waitForExit(10_000)).toEqual({ code: 1, signal: null });
    expect(agent.stderr).toMatch(/^Error: .*--log-json-split-stream.*LoggingAlphaOptions/m);
    expect(agent.stderr).not.toMatch(/Starting agent/);
  });
});

describe('json split stream', () => {
  it('info records go to stdout, warnings to stderr', async () => {
    const agent = await launch([JSON_GATE, '--logging-format=json', '--log-json-split-stream']);
    await runUntilReady(agent, /"msg":"all components ready"/, 'stdout');
    const out = records(agent.stdout);
    const err = records(agent.stderr);
    expect(msgs(out)).toEqual(expect.arrayContaining(['Starting agent', 'healthz server listening', 'all components ready', 'Agent stopped']));
    expect(out.filter((r) => r.msg.includes('deprecated'))).toEqual([]);
    // stderr holds the deprecation warnings and nothing else.
    expect(err.length).toBeGreaterThan(0);
    for (const r of err) expect(r.msg).toMatch(/^Flag --\S+ has been deprecated/);
    expect(msgs(err)).toContain('Flag --log-json-split-stream has been deprecated: set "logging.options.json.splitStream" in the file given by --config instead');
  });

  it('errors go to stderr, the info before them to stdout', async () => {
    const busy = await listenOn(0);
    cleanups.push(() => closeServer(busy));
    const port = (busy.address() as { port: number }).port;
    const agent = await launch([JSON_GATE, '--logging-format=json', '--log-json-split-stream'], { healthzPort: port });
    expect(await agent.waitForExit(10_000)).toEqual({ code: 1, signal: null });
    const out = records(agent.stdout);
    const err = records(agent.stderr);
    expect(msgs(out)).toContain('Starting agent');
    expect(msgs(out)).not.toContain('Agent failed');
    const failed = err.find((r) => r.msg === 'Agent failed');
    expect(failed).toBeDefined();
    // Errors carry no V-level and name the failure.
    expect(failed).not.toHaveProperty('v');
    expect(String(failed!['err'])).toContain(`127.0.0.1:${port}`);
  });

  it('with an info buffer, buffered records reach stdout within --log-flush-frequency and at exit', async () => {
    const agent = await launch([JSON_GATE, '--logging-format=json', '--log-json-split-stream', '--log-json-info-buffer-size=1Mi', '--log-flush-frequency=100ms']);
    // Far below 1 MiB: only the flush timer can deliver this while the agent runs.
    await agent.waitForLine(/"msg":"all components ready"/, { stream: 'stdout', timeoutMs: 5_000 });
    expect(agent.running).toBe(true);
    expect(agent.kill('SIGTERM')).toBe(true);
    expect(await agent.waitForExit(10_000)).toEqual({ code: 0, signal: null });
    expect(msgs(records(agent.stdout)).at(-1)).toBe('Agent stopped');
  });
});
