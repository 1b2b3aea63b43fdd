import { Writable } from 'node:stream';
import { describe, expect, test, vi } from 'vitest';
import { BufferedOutput, Sink } from '../../../src/log/sink.js';

function capture() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: unknown, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  return { stream, chunks };
}

describe('BufferedOutput', () => {
  test('counts bytes, not characters', () => {
    const c = capture();
    const out = new BufferedOutput(c.stream, 10, 0);
    out.write('éééé\n'); // 9 bytes, 5 characters
    out.write('a\n'); // 9 + 2 > 10: the first line goes out alone
    expect(c.chunks).toEqual(['éééé\n']);
    out.flush();
    expect(c.chunks).toEqual(['éééé\n', 'a\n']);
  });

  test('pending lines are joined into one write', () => {
    const c = capture();
    const out = new BufferedOutput(c.stream, 100, 0);
    out.write('a\n');
    out.write('b\n');
    out.write('c\n');
    out.flush();
    out.flush();
    expect(c.chunks).toEqual(['a\nb\nc\n']);
  });
});

describe('Sink', () => {
  test('close is idempotent and drops later writes', () => {
    const out = capture();
    const err = capture();
    const sink = new Sink({ format: 'json', splitStream: true, infoBufferSize: 100, flushFrequencyMs: 0, stdout: out.stream, stderr: err.stream });
    sink.write('I', 'i1\n');
    sink.close();
    sink.close();
    sink.write('I', 'i2\n');
    sink.write('E', 'e\n');
    sink.flush();
    expect([out.chunks, err.chunks, sink.isClosed]).toEqual([['i1\n'], [], true]);
  });
});

describe('startup cost', () => {
  test('the text format does not load pino until .pino is used', async () => {
    // Fresh module instances, so the result does not depend on test isolation.
    vi.resetModules();
    const log = await import('../../../src/log/index.js');
    const bridge = await import('../../../src/log/pino-bridge.js');
    const err = capture();
    const logging = log.createLogging({ format: 'text', verbosity: 9, vmodule: [], flushFrequencyMs: 5000, json: { splitStream: false, infoBufferSize: 0 }, stderr: err.stream });
    logging.root.child({ component: 'x' }).v(3)?.info('m', { a: 1 });
    logging.root.error('e', { err: new Error('x') });
    expect(err.chunks).toHaveLength(2);
    expect(bridge.isPinoLoaded()).toBe(false);
    expect(typeof logging.root.pino.info).toBe('function');
    expect(bridge.isPinoLoaded()).toBe(true);
  });
});
