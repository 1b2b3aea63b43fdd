import { Writable } from 'node:stream';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { ConfigFileError } from '../../../src/errors.js';
import { createLogging, type AgentLogger, type LoggingOptions } from '../../../src/log/index.js';

const NOW = new Date(Date.UTC(2023, 10, 22, 2, 39, 27, 123));
const TS = NOW.getTime();

/** Every chunk written to either stream, in order, tagged with the stream. */
function streams() {
  const written: Array<[string, string]> = [];
  const make = (name: string) =>
    new Writable({
      write(chunk: unknown, _enc, cb) {
        written.push([name, String(chunk)]);
        cb();
      },
    });
  const on = (name: string) => written.filter(([n]) => n === name).map(([, c]) => c);
  return { written, stdout: make('stdout'), stderr: make('stderr'), on };
}

function setup(json: LoggingOptions['json'] = { splitStream: false, infoBufferSize: 0 }, over: Partial<LoggingOptions> = {}) {
  const s = streams();
  const logging = createLogging({
    format: 'json',
    verbosity: 2,
    vmodule: [],
    flushFrequencyMs: 5000,
    json,
    stdout: s.stdout,
    stderr: s.stderr,
    pid: 12345,
    now: () => NOW,
    ...over,
  });
  return { ...s, logging, log: logging.root };
}

/** This file's call sites as component-base's `caller` names them (zap's ShortCallerEncoder: dir/file:line). */
const CALLER = /^log\/logging-json\.test\.ts:\d+$/;
/** The line without its `caller` key, which must name this file: exact-line assertions stay independent of line numbers. */
const noCaller = (chunk: string | undefined): string => {
  const m = /,"caller":"([^"]*)"/.exec(chunk ?? '');
  expect(m?.[1]).toMatch(CALLER);
  return (chunk ?? '').replace(m![0], '');
};

const parse = (chunk: string | undefined): Record<string, unknown> => JSON.parse(chunk ?? 'null') as Record<string, unknown>;

afterEach(() => {
  vi.useRealTimers();
});

describe('json records', () => {
  test('info: exact line with component-base keys', () => {
    const s = setup();
    s.log.info('hello', { n: 4, ok: true });
    expect(s.on('stderr').map(noCaller)).toEqual([`{"ts":${TS},"component":"agent","msg":"hello","v":0,"n":4,"ok":true}\n`]);
  });

  test.each<[string, (l: AgentLogger) => void, Record<string, unknown>]>([
    ['v-level record carries its level', (l) => l.v(2)?.info('m'), { ts: TS, component: 'agent', msg: 'm', v: 2 }],
    ['warn has v 0 and severity WARNING', (l) => l.warn('m'), { ts: TS, component: 'agent', severity: 'WARNING', msg: 'm', v: 0 }],
    ['error has no v, severity ERROR and an err string', (l) => l.error('m', { err: new Error('boom') }), { ts: TS, component: 'agent', severity: 'ERROR', msg: 'm', err: 'boom' }],
    ['thrown string', (l) => l.error('m', { err: 'boom' }), { ts: TS, component: 'agent', severity: 'ERROR', msg: 'm', err: 'boom' }],
    ['format keys are not overwritten by fields', (l) => l.info('m', { msg: 'x', v: 9, k: 1 }), { ts: TS, component: 'agent', msg: 'm', v: 0, k: 1 }],
    ['child component and bindings', (l) => l.child({ component: 'sync', pod: 'ns/web', podUID: 'u-1' }).info('m'), { ts: TS, component: 'sync', pod: 'ns/web', podUID: 'u-1', msg: 'm', v: 0 }],
  ])('%s', (_name, write, expected) => {
    const s = setup();
    write(s.log);
    const rec = parse(s.on('stderr')[0]);
    delete rec['errDetails'];
    expect(rec).toEqual({ ...expected, caller: expect.stringMatching(CALLER) as unknown });
  });

  test('severity: exact lines; info and V(n) records carry none, warnings and errors a stable key', () => {
    const s = setup();
    s.log.info('i');
    s.log.v(2)?.info('v');
    s.log.warn('w', { n: 1 });
    s.log.child({ component: 'sync', pod: 'ns/web' }).error('e', { err: 'boom' });
    expect(s.on('stderr').map(noCaller)).toEqual([
      `{"ts":${TS},"component":"agent","msg":"i","v":0}\n`,
      `{"ts":${TS},"component":"agent","msg":"v","v":2}\n`,
      `{"ts":${TS},"component":"agent","severity":"WARNING","msg":"w","v":0,"n":1}\n`,
      `{"ts":${TS},"component":"sync","pod":"ns/web","severity":"ERROR","msg":"e","err":"boom"}\n`,
    ]);
  });

  test('a field named severity does not replace the record\'s own', () => {
    const s = setup();
    s.log.warn('w', { severity: 'INFO' });
    s.log.info('i', { severity: 'ERROR' });
    const [w, i] = s.on('stderr').map(parse);
    expect(w?.['severity']).toBe('WARNING');
    expect(i?.['severity']).toBeUndefined();
  });

  test('a child overriding component emits the key once', () => {
    const s = setup();
    s.log.child({ component: 'sync' }).child({ component: 'prober', c: 1 }).info('m');
    const line = s.on('stderr')[0] ?? '';
    expect(line.match(/"component"/g)).toHaveLength(1);
    expect(parse(line)['component']).toBe('prober');
  });

  test('AgentError: err string plus errDetails with context fields and cause chain', () => {
    const s = setup();
    const err = new ConfigFileError('unknown field', {
      field: 'evictionHard',
      file: '/etc/agent/config.yaml',
      line: 7,
      flag: '--config',
      cause: new Error('strict decoding'),
    });
    s.log.error('load failed', { err, attempt: 1 });
    const rec = parse(s.on('stderr')[0]);
    expect(Object.keys(rec)).toEqual(['ts', 'caller', 'component', 'severity', 'msg', 'err', 'errDetails', 'attempt']);
    expect(rec['err']).toBe('unknown field: strict decoding');
    expect(rec['errDetails']).toMatchObject({
      type: 'ConfigFileError',
      message: 'unknown field',
      code: 'ECONFIG',
      flag: '--config',
      field: 'evictionHard',
      file: '/etc/agent/config.yaml',
      line: 7,
      stack: expect.stringMatching(/^ConfigFileError: unknown field\n/) as unknown,
      cause: { type: 'Error', message: 'strict decoding' },
    });
  });

  test('vmodule is ignored', () => {
    const s = setup(undefined, { verbosity: 1, vmodule: [{ filePattern: 'sync', verbosity: 5 }] });
    const sync = s.log.child({ component: 'sync' });
    expect(sync.verbosity).toBe(1);
    sync.v(2)?.info('hidden');
    expect(s.written).toEqual([]);
  });

  test('pino escape hatch keeps the shape', () => {
    const s = setup();
    const c = s.log.child({ component: 'cri' });
    c.pino.info({ x: 1 }, 'direct');
    c.pino.error(new Error('e'));
    const [info, error] = s.on('stderr').map(parse);
    expect(info).toEqual({ ts: TS, component: 'cri', x: 1, msg: 'direct' });
    expect(error).toMatchObject({ ts: TS, component: 'cri', err: 'e', msg: 'e', errDetails: { type: 'Error' } });
    c.pino.warn('direct warning');
    expect(parse(s.on('stderr')[2])).toEqual({ ts: TS, component: 'cri', severity: 'WARNING', msg: 'direct warning' });
  });
});

describe('routing', () => {
  test.each([
    [false, { info: 'stderr', v: 'stderr', warn: 'stderr', error: 'stderr' }],
    [true, { info: 'stdout', v: 'stdout', warn: 'stderr', error: 'stderr' }],
  ])('splitStream=%s', (splitStream, expected) => {
    const s = setup({ splitStream, infoBufferSize: 0 });
    s.log.info('info');
    s.log.v(1)?.info('v');
    s.log.warn('warn');
    s.log.error('error');
    const where = Object.fromEntries(s.written.map(([stream, chunk]) => [parse(chunk)['msg'], stream]));
    expect(where).toEqual(expected);
  });

  test('infoBufferSize is ignored without splitStream', () => {
    const s = setup({ splitStream: false, infoBufferSize: 4096 });
    s.log.info('now');
    expect(s.on('stderr')).toHaveLength(1);
  });
});

describe('info buffering (split stream)', () => {
  // Every line of `rec(i)` (i < 10) is exactly 70 bytes plus the caller key (one call site), so sizes below are exact.
  const rec = (l: AgentLogger, i: number) => l.info(`r${i}`, { pad: 'x'.repeat(3) });
  const LINE = (() => {
    const s = setup({ splitStream: true, infoBufferSize: 0 });
    rec(s.log, 1);
    return 70 + Buffer.byteLength(s.on('stdout')[0] ?? '') - Buffer.byteLength(noCaller(s.on('stdout')[0]));
  })();

  test('line size assumption', () => {
    const s = setup({ splitStream: true, infoBufferSize: 0 });
    rec(s.log, 1);
    expect(Buffer.byteLength(noCaller(s.on('stdout')[0]))).toBe(70);
    expect(Buffer.byteLength(s.on('stdout')[0] ?? '')).toBe(LINE);
  });

  test('written when the next line would overflow, whole lines only', () => {
    const s = setup({ splitStream: true, infoBufferSize: LINE * 2 + 10 });
    rec(s.log, 1);
    rec(s.log, 2);
    expect(s.on('stdout')).toEqual([]);
    rec(s.log, 3);
    expect(s.on('stdout').map((c) => c.split('\n').length - 1)).toEqual([2]);
    s.logging.flush();
    expect(s.on('stdout').map((c) => c.split('\n').length - 1)).toEqual([2, 1]);
  });

  test('written as soon as the buffer is exactly full', () => {
    const s = setup({ splitStream: true, infoBufferSize: LINE * 2 });
    rec(s.log, 1);
    rec(s.log, 2);
    expect(s.on('stdout')).toHaveLength(1);
  });

  test('a line larger than the buffer is written at once', () => {
    const s = setup({ splitStream: true, infoBufferSize: 10 });
    rec(s.log, 1);
    expect(s.on('stdout')).toHaveLength(1);
  });

  test('flush() writes pending lines; close() writes the rest', async () => {
    const s = setup({ splitStream: true, infoBufferSize: 4096 });
    rec(s.log, 1);
    s.logging.flush();
    expect(s.on('stdout')).toHaveLength(1);
    rec(s.log, 2);
    await s.logging.close();
    expect(s.on('stdout')).toHaveLength(2);
    expect(parse(s.on('stdout')[1])['msg']).toBe('r2');
  });

  test('an error first writes the info lines buffered before it', () => {
    const s = setup({ splitStream: true, infoBufferSize: 4096 });
    rec(s.log, 1);
    s.log.warn('w');
    expect(s.written.map(([n]) => n)).toEqual(['stderr']);
    s.log.error('e');
    expect(s.written.map(([n]) => n)).toEqual(['stderr', 'stdout', 'stderr']);
  });

  test('the flush timer writes pending lines after flushFrequencyMs', () => {
    vi.useFakeTimers();
    const s = setup({ splitStream: true, infoBufferSize: 4096 }, { flushFrequencyMs: 5000 });
    expect(vi.getTimerCount()).toBe(0);
    rec(s.log, 1);
    vi.advanceTimersByTime(3000);
    rec(s.log, 2);
    vi.advanceTimersByTime(1999);
    expect(s.on('stdout')).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(s.on('stdout').map((c) => c.split('\n').length - 1)).toEqual([2]);
    expect(vi.getTimerCount()).toBe(0);
  });

  test('close() stops the timer and nothing is written afterwards', async () => {
    vi.useFakeTimers();
    const s = setup({ splitStream: true, infoBufferSize: 4096 });
    rec(s.log, 1);
    expect(vi.getTimerCount()).toBe(1);
    await s.logging.close();
    expect(vi.getTimerCount()).toBe(0);
    rec(s.log, 2);
    s.log.error('e');
    s.logging.flush();
    vi.advanceTimersByTime(60_000);
    expect(s.written).toHaveLength(1);
  });

  test('flushFrequencyMs <= 0 arms no timer', () => {
    vi.useFakeTimers();
    const s = setup({ splitStream: true, infoBufferSize: 4096 }, { flushFrequencyMs: 0 });
    rec(s.log, 1);
    expect(vi.getTimerCount()).toBe(0);
  });

  test('the flush timer does not keep the process alive', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const s = setup({ splitStream: true, infoBufferSize: 4096 }, { flushFrequencyMs: 60_000 });
    rec(s.log, 1);
    expect(timers()).toBe(before);
    await s.logging.close();
  });
});
