import { Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { AgentError, ValueError } from '../../../src/errors.js';
import { createLogging, type AgentLogger, type LoggingOptions, type VmoduleEntry } from '../../../src/log/index.js';

const NOW = new Date(Date.UTC(2023, 10, 22, 2, 39, 27, 123));
const H = '1122 02:39:27.123000   12345';

function capture() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: unknown, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  return { stream, chunks, text: () => chunks.join('') };
}

function setup(verbosity = 0, vmodule: VmoduleEntry[] = [], over: Partial<LoggingOptions> = {}) {
  const out = capture();
  const err = capture();
  const logging = createLogging({
    format: 'text',
    verbosity,
    vmodule,
    flushFrequencyMs: 5000,
    json: { splitStream: true, infoBufferSize: 1024 },
    stdout: out.stream,
    stderr: err.stream,
    pid: 12345,
    now: () => NOW,
    ...over,
  });
  return { logging, log: logging.root, out, err };
}

describe('text format lines', () => {
  test.each([
    ['info with fields', (l: AgentLogger) => l.info('hello world', { key: 'value', n: 4 }), `I${H} agent] hello world key="value" n=4\n`],
    ['warn', (l: AgentLogger) => l.warn('careful', { ok: false }), `W${H} agent] careful ok=false\n`],
    ['error with err', (l: AgentLogger) => l.error('failed', { err: new Error('boom'), attempt: 2 }), `E${H} agent] failed err="boom" attempt=2\n`],
    ['multi-line message', (l: AgentLogger) => l.info('line1\nline2'), `I${H} agent] line1\\nline2\n`],
    ['object field', (l: AgentLogger) => l.info('m', { labels: { app: 'web' } }), `I${H} agent] m labels={"app":"web"}\n`],
    ['quoting', (l: AgentLogger) => l.info('m', { a: '', b: 'x y', c: 'q"q', d: 'k=v' }), `I${H} agent] m a="" b="x y" c="q\\"q" d="k=v"\n`],
  ])('%s', (_name, write, expected) => {
    const s = setup();
    write(s.log);
    expect(s.err.text()).toBe(expected);
  });

  test('all levels go to stderr, none to stdout, even with json split options set', () => {
    const s = setup(5);
    s.log.info('i');
    s.log.v(5)?.info('v5');
    s.log.warn('w');
    s.log.error('e');
    expect(s.out.chunks).toEqual([]);
    expect(s.err.chunks).toHaveLength(4);
  });

  test('AgentError: message and cause in err', () => {
    const s = setup();
    const err = new ValueError('bad quantity "12x"', { flag: '--max-pods', cause: new Error('not a number') });
    s.log.error('parse failed', { err });
    expect(s.err.text()).toBe(`E${H} agent] parse failed err="bad quantity \\"12x\\": not a number"\n`);
  });

  test('defaults: real pid and clock', () => {
    const err = capture();
    const logging = createLogging({
      format: 'text',
      verbosity: 0,
      vmodule: [],
      flushFrequencyMs: 5000,
      json: { splitStream: false, infoBufferSize: 0 },
      stderr: err.stream,
    });
    const before = Date.now();
    logging.root.info('x');
    const line = err.text();
    expect(line.slice(22, 30)).toBe(`${String(process.pid).padStart(7)} `);
    const d = new Date(before);
    const mmdd = String(d.getUTCMonth() + 1).padStart(2, '0') + String(d.getUTCDate()).padStart(2, '0');
    expect(line.slice(0, 5)).toBe(`I${mmdd}`);
  });
});

describe('children', () => {
  test('component becomes the source; other bindings become pairs', () => {
    const s = setup();
    const pod = s.log.child({ component: 'sync', pod: 'ns/web', podUID: 'u-1' });
    pod.info('synced', { attempt: 2 });
    expect(s.err.text()).toBe(`I${H} sync] synced pod="ns/web" podUID="u-1" attempt=2\n`);
    expect(pod.component).toBe('sync');
  });

  test('grandchild keeps the component unless given, and accumulates bindings', () => {
    const s = setup();
    const c = s.log.child({ component: 'sync', pod: 'ns/web' });
    c.child({ container: 'app' }).info('a');
    c.child({ component: 'prober', pod: 'ns/other' }).info('b');
    expect(s.err.chunks).toEqual([
      `I${H} sync] a pod="ns/web" container="app"\n`,
      `I${H} prober] b pod="ns/other"\n`,
    ]);
  });

  test('a field overrides a binding of the same key; the parent is unchanged', () => {
    const s = setup();
    const c = s.log.child({ pod: 'ns/web' });
    c.info('m', { pod: 'ns/db' });
    s.log.info('root');
    expect(s.err.chunks).toEqual([`I${H} agent] m pod="ns/db"\n`, `I${H} agent] root\n`]);
  });
});

describe('verbosity', () => {
  test.each([
    [0, [0]],
    [2, [0, 1, 2]],
    [4, [0, 1, 2, 3, 4]],
  ])('-v=%i writes exactly V-levels %j', (verbosity, levels) => {
    const s = setup(verbosity);
    for (let n = 0; n <= 6; n++) s.log.v(n)?.info(`v${n}`);
    const written = s.err.chunks.map((l) => Number(/\] v(\d)/.exec(l)?.[1]));
    expect(written).toEqual(levels);
  });

  test('info, warn and error are written at -v=0', () => {
    const s = setup(0);
    s.log.info('i');
    s.log.warn('w');
    s.log.error('e');
    expect(s.err.chunks.map((l) => l[0])).toEqual(['I', 'W', 'E']);
  });

  test('a disabled level does not evaluate its fields', () => {
    const s = setup(1);
    let evaluated = 0;
    const expensive = () => ++evaluated;
    s.log.v(2)?.info('m', { n: expensive() });
    s.log.v(1)?.info('m', { n: expensive() });
    expect(evaluated).toBe(1);
  });

  test('V-level records use the I letter and the same line shape', () => {
    const s = setup(3);
    s.log.child({ component: 'pleg' }).v(3)?.info('relist', { pods: 3 });
    expect(s.err.text()).toBe(`I${H} pleg] relist pods=3\n`);
  });

  test('vmodule raises the level of matching components only', () => {
    const s = setup(1, [
      { filePattern: 'sync*', verbosity: 4 },
      { filePattern: 'server', verbosity: 0 },
    ]);
    const sync = s.log.child({ component: 'syncloop' });
    const server = s.log.child({ component: 'server' });
    expect([s.log.verbosity, sync.verbosity, server.verbosity]).toEqual([1, 4, 1]);
    sync.v(4)?.info('sync4');
    sync.v(5)?.info('sync5');
    s.log.v(2)?.info('root2');
    server.v(1)?.info('server1');
    expect(s.err.chunks.map((l) => l.slice(l.indexOf(']') + 2))).toEqual(['sync4\n', 'server1\n']);
  });

  test('a child that changes component is re-resolved against vmodule', () => {
    const s = setup(0, [{ filePattern: 'prober', verbosity: 3 }]);
    const p = s.log.child({ component: 'sync', pod: 'x' }).child({ component: 'prober' });
    expect(p.v(3)).toBeDefined();
    expect(s.log.child({ pod: 'x' }).v(1)).toBeUndefined();
  });
});

describe('pino escape hatch in text format', () => {
  test('records still come out as text lines', () => {
    const s = setup();
    const c = s.log.child({ component: 'cri', endpoint: 'unix:///run/c.sock' });
    c.pino.info({ x: 1 }, 'direct');
    c.pino.warn('w');
    c.pino.error(new AgentError('EINTERNAL', 'oops'));
    expect(s.err.chunks).toEqual([
      `I${H} cri] direct endpoint="unix:///run/c.sock" x=1\n`,
      `W${H} cri] w endpoint="unix:///run/c.sock"\n`,
      `E${H} cri] oops err="oops" endpoint="unix:///run/c.sock"\n`,
    ]);
  });
});

describe('close', () => {
  test('is idempotent and nothing is written after it, from any logger', async () => {
    const s = setup(5);
    const child = s.log.child({ component: 'sync' });
    const v = child.v(2);
    s.log.info('before');
    const first = s.logging.close();
    s.log.error('between close() and its resolution');
    await first;
    await s.logging.close();
    s.log.info('after');
    s.log.error('after');
    child.warn('after');
    v?.info('after');
    s.log.child({ component: 'new' }).error('after');
    child.pino.error('after');
    s.logging.flush();
    expect(s.err.chunks).toEqual([`I${H} agent] before\n`]);
    expect(s.out.chunks).toEqual([]);
  });
});
