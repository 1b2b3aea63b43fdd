import { describe, expect, it, vi } from 'vitest';
import { JsonStreamSplitter } from '../../../../src/api/codec/index.js';
import { jsonDocuments } from '../../../../src/client/rest/json-lines.js';

const parse = (d: Buffer): unknown => JSON.parse(d.toString('utf8')) as unknown;

/** What the general splitter makes of the stream: the reference the fast path must agree with. */
function reference(text: string): { docs: unknown[]; error?: string; pending: boolean } {
  const s = new JsonStreamSplitter({ maxDocumentBytes: 1 << 20 });
  const docs: unknown[] = [];
  try {
    // Byte by byte: every document the splitter can complete before an error.
    for (const b of Buffer.from(text)) docs.push(...s.push(Buffer.from([b])).map(parse));
  } catch (e) {
    return { docs, error: (e as Error).message, pending: s.pending };
  }
  return { docs, pending: s.pending };
}

function viaLines(chunks: Buffer[]): { docs: unknown[]; error?: string; pending: boolean } {
  const r = jsonDocuments(1 << 20, parse);
  const docs: unknown[] = [];
  try {
    for (const c of chunks) docs.push(...r.push(c));
    docs.push(...r.finish());
  } catch (e) {
    return { docs, error: (e as Error).message, pending: r.pending };
  }
  return { docs, pending: r.pending };
}

/** Every way of cutting `text` in two, plus one byte at a time. */
function chunkings(text: string): Buffer[][] {
  const b = Buffer.from(text);
  const out: Buffer[][] = [[b], [...b].map((x) => Buffer.from([x]))];
  for (let i = 1; i < b.length; i++) out.push([b.subarray(0, i), b.subarray(i)]);
  return out;
}

const ev = (n: number): string => JSON.stringify({ type: 'MODIFIED', object: { kind: 'Pod', metadata: { name: `p${n}`, annotations: { a: 'x\ny "}{' } } } });

describe('jsonDocuments: one JSON.parse per line, the splitter for anything else', () => {
  it.each([
    ['one event per line', `${ev(1)}\n${ev(2)}\n`],
    ['the last event without a newline', `${ev(1)}\n${ev(2)}`],
    ['blank lines and CRLF', `\n\r\n${ev(1)}\r\n\n${ev(2)}\r\n  \n`],
    ['multi-byte characters', `${JSON.stringify({ type: 'ADDED', object: { n: 'é—😀' } })}\n`],
    ['a pretty-printed document', `${ev(1)}\n${JSON.stringify({ type: 'ADDED', object: { a: [1, 2] } }, null, 2)}\n${ev(3)}\n`],
    ['two documents on one line', `${ev(1)}\n${ev(2)} ${ev(3)}\n${ev(4)}\n`],
    ['documents with no whitespace between', `${ev(1)}${ev(2)}`],
    ['garbage after good lines', `${ev(1)}\n<html>oops</html>\n`],
    ['a number line', `${ev(1)}\n42\n`],
    ['a stream cut inside an event', `${ev(1)}\n{"type":"ADDED","object":{"kind":"Po`],
    ['an array', `[1,2]\n`],
    ['lines, a pretty-printed document, lines again', `${ev(1)}\n${JSON.stringify({ a: { b: [1] } }, null, 1)}\n${ev(2)}\n${ev(3)}\n\n  x\n`],
    ['only whitespace', ` \n\t\n`],
  ])('%s: the same documents, error and pending state as the splitter, however the bytes are chunked', (_name, text) => {
    const want = reference(text);
    for (const chunks of chunkings(text)) {
      const got = viaLines(chunks);
      expect({ error: got.error, pending: got.pending }).toEqual({ error: want.error, pending: want.pending });
      // Documents the same push completes are lost with its error, on either path: those before it agree.
      if (want.error === undefined) expect(got.docs).toEqual(want.docs);
      else expect(want.docs.slice(0, got.docs.length)).toEqual(got.docs);
    }
  });

  it('delivers the documents of a stream without newlines as each one completes', () => {
    const r = jsonDocuments(1 << 20, parse);
    expect(r.push(Buffer.from('{"a":1}'))).toEqual([{ a: 1 }]);
    expect(r.push(Buffer.from(' {"b":'))).toEqual([]);
    expect(r.push(Buffer.from('2}'))).toEqual([{ b: 2 }]);
    expect(r.pending).toBe(false);
  });

  it('goes back to lines at the first newline between documents after the splitter took over', () => {
    const spy = vi.spyOn(JsonStreamSplitter.prototype, 'push');
    try {
      const r = jsonDocuments(1 << 20, parse);
      const lines = Array.from({ length: 40 }, (_, i) => ev(i)).join('\n');
      // A small chunk with no newline that ends in a `}` inside an event (a TLS record cut there) takes the splitter ...
      const cut = lines.indexOf('}') + 1;
      expect(r.push(Buffer.from(lines.slice(0, cut)))).toEqual([]);
      // ... which hands the stream back at the event's newline, although this chunk ends inside another event.
      expect(r.push(Buffer.from(lines.slice(cut, 3000)))).toHaveLength(lines.slice(0, 3000).split('\n').length - 1);
      const splitterCalls = spy.mock.calls.length;
      expect(splitterCalls).toBeGreaterThan(0);
      expect(r.push(Buffer.from(`${lines.slice(3000)}\n`))).toHaveLength(40 - (lines.slice(0, 3000).split('\n').length - 1));
      expect(spy.mock.calls.length).toBe(splitterCalls);
      expect(r.pending).toBe(false);
    } finally {
      spy.mockRestore();
    }
  });

  it('refuses a line longer than the limit before buffering more of it', () => {
    const r = jsonDocuments(64, parse);
    r.push(Buffer.from(`{"a":"${'x'.repeat(40)}`));
    expect(() => r.push(Buffer.from('x'.repeat(40)))).toThrow(/exceeds the limit of 64 bytes/);
  });

  it('keeps no view of a chunk the caller may reuse', () => {
    const r = jsonDocuments(1 << 20, parse);
    const chunk = Buffer.from('{"a":1}\n{"b":');
    expect(r.push(chunk)).toEqual([{ a: 1 }]);
    chunk.fill(0x20);
    expect(r.push(Buffer.from('2}\n'))).toEqual([{ b: 2 }]);
  });
});
