// Byte-level checks against hand-computed encodings, the envelope's errors,
// and the watch stream's frames (protobuf) and documents (JSON).
import { describe, expect, it } from 'vitest';
import { JsonStreamSplitter, WatchFrameDecoder, decodeEnvelope, encodeEnvelope, encodeWatchFrame, loadApiCodec } from '../../../../src/api/codec/index.js';
import { WireReader } from '../../../../src/api/codec/wire.js';
import { POD } from '../../../fixtures/api/objects.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const POD_TM = { apiVersion: 'v1', kind: 'Pod' };

describe('hand-computed encodings', () => {
  it.each([
    // metadata(1){ creationTimestamp(8){ seconds(1) = 1709288430 } }: seconds only, no nanos.
    ['a Time', { metadata: { creationTimestamp: '2024-03-01T10:20:30Z' } }, '0a08 4206 08eed786af06'],
    // spec(2){ containers(2){ resources(8){ limits(1){ key "cpu", value Quantity{ string(1) "500m" } } } } }
    ['a Quantity', { spec: { containers: [{ resources: { limits: { cpu: '500m' } } }] } }, '1213 1211 420f 0a0d 0a03637075 1206 0a04 3530306d'],
    // spec{ containers{ readinessProbe(11){ handler(1, inline){ httpGet(2){ port(2) IntOrString{ type 0, intVal 8080 } } } } } }
    ['an IntOrString number', { spec: { containers: [{ readinessProbe: { httpGet: { port: 8080 } } }] } }, '120f 120d 5a0b 0a09 1207 1205 0800 10903f'],
    ['an IntOrString string', { spec: { containers: [{ readinessProbe: { httpGet: { port: 'http' } } }] } }, '1212 1210 5a0e 0a0c 120a 1208 0801 1a0468747470'],
    ['an empty string and an empty message', { metadata: { name: '' }, spec: { securityContext: {} } }, '0a02 0a00 1202 7200'],
    ['a negative int64', { metadata: { deletionGracePeriodSeconds: -1 } }, '0a0b 50ffffffffffffffffff01'],
  ])('%s', async (_what, obj, expected) => {
    const c = await loadApiCodec();
    expect(c.encodeRaw(obj, POD_TM).toString('hex')).toBe(hex(expected).toString('hex'));
    expect(c.decodeRaw(hex(expected), POD_TM)).toEqual(obj);
  });

  it('reads what Go writes: nanos = 0 in a Time, all three IntOrString fields, an empty (zero) Time', async () => {
    const c = await loadApiCodec();
    expect(c.decodeRaw(hex('0a0a 4208 08eed786af06 1000'), POD_TM)).toEqual({ metadata: { creationTimestamp: '2024-03-01T10:20:30Z' } });
    expect(c.decodeRaw(hex('0a02 4200'), POD_TM)).toEqual({ metadata: {} });
    expect(c.encodeRaw({ metadata: { creationTimestamp: '0001-01-01T00:00:00Z' } }, POD_TM).toString('hex')).toBe('0a024200');
    expect(c.decodeRaw(hex('1211 120f 5a0d 0a0b 1209 1207 0800 10903f 1a00'), POD_TM)).toEqual({ spec: { containers: [{ readinessProbe: { httpGet: { port: 8080 } } }] } });
  });

  it('skips fields it does not know and rejects truncated input naming the field', async () => {
    const c = await loadApiCodec();
    expect(c.decodeRaw(hex('f80701 0a03 0a0161'), POD_TM)).toEqual({ metadata: { name: 'a' } });
    // An unknown length-delimited field (99, "ab") before a known one: skipped whole, length byte included.
    expect(c.decodeRaw(hex('9a0602 6162 0a03 0a0161'), POD_TM)).toEqual({ metadata: { name: 'a' } });
    expect(() => c.decodeRaw(hex('0a05 0a0361'), POD_TM)).toThrow(expect.objectContaining({ code: 'EWIRE', field: 'metadata' }));
    // spec{ containers[0]{ name "c" }, containers[1]{ resources{ limits entry overrunning } } }
    expect(() => c.decodeRaw(hex('120d 1203 0a0163 1206 4204 0a05 0a03'), POD_TM)).toThrow(expect.objectContaining({ code: 'EWIRE', field: 'spec.containers[1].resources.limits' }));
  });

  it('reads int64 varints of every size', () => {
    for (const n of [0, 1, 127, 128, 2 ** 31, 2 ** 32 + 5, 2 ** 53 - 1, -1, -(2 ** 40)]) {
      const bytes: number[] = [];
      let big = BigInt.asUintN(64, BigInt(n));
      while (big >= 128n) {
        bytes.push(Number(big & 0x7fn) | 0x80);
        big >>= 7n;
      }
      bytes.push(Number(big));
      expect(new WireReader(Buffer.from(bytes)).int64()).toBe(n);
    }
  });
});

describe('envelope', () => {
  it('is magic + Unknown{typeMeta, raw, contentEncoding "", contentType ""}', async () => {
    const c = await loadApiCodec();
    const bytes = c.encode({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'a' } });
    expect(bytes.toString('hex')).toBe(hex('6b387300 0a0f 0a027631 12094e616d657370616365 1205 0a030a0161 1a00 2200').toString('hex'));
    const env = decodeEnvelope(bytes);
    expect(env.typeMeta).toEqual({ apiVersion: 'v1', kind: 'Namespace' });
    expect(env.raw.toString('hex')).toBe('0a030a0161');
  });

  it.each([
    ['empty input', '', 'empty data'],
    ['no magic', '7b7d', 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]'],
    ['magic only', '6b387300', 'empty body'],
    ['no kind', '6b387300 0a04 0a027631', "Object 'Kind' is missing in protobuf envelope"],
    ['truncated', '6b387300 0a0f 0a02', 'invalid protobuf envelope: protobuf: unexpected end of data at offset 6'],
  ])('%s: %s', (_what, input, message) => {
    expect(() => decodeEnvelope(hex(input))).toThrow(expect.objectContaining({ code: 'EENVELOPE', message }));
  });

  it('names an envelope kind the codec does not serve', async () => {
    const c = await loadApiCodec();
    expect(() => c.decode(encodeEnvelope({ apiVersion: 'apps/v1', kind: 'Deployment' }, Buffer.alloc(0)))).toThrow(expect.objectContaining({ code: 'EKIND' }));
  });
});

describe('watch frames', () => {
  it('are a big-endian length and WatchEvent{type, object{raw = envelope}}', () => {
    const env = hex('6b387300 0a00 1200');
    expect(encodeWatchFrame('ADDED', env).toString('hex')).toBe(hex('00000013 0a054144444544 120a 0a08 6b3873000a001200').toString('hex'));
  });

  it('decode from any split of the stream, objects included', async () => {
    const c = await loadApiCodec();
    const events = [
      ['ADDED', c.encode(POD)],
      ['MODIFIED', c.encode({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'x' } })],
      ['BOOKMARK', c.encode({ kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '12', annotations: { 'platform.io/initial-events-end': 'true' } } })],
    ] as const;
    const stream = Buffer.concat(events.map(([t, e]) => encodeWatchFrame(t, e)));
    for (const size of [1, 2, 3, 5, 7, 64, 1000, stream.length]) {
      const d = new WatchFrameDecoder();
      const got: { type: string; object: Record<string, unknown> }[] = [];
      for (let i = 0; i < stream.length; i += size) for (const f of d.push(stream.subarray(i, i + size))) got.push({ type: f.type, object: c.decode(f.object).object });
      expect(d.pending).toBe(0);
      expect(got.map((g) => g.type)).toEqual(['ADDED', 'MODIFIED', 'BOOKMARK']);
      expect(got[0]?.object).toEqual(c.decode(events[0][1]).object);
      expect(got[2]?.object['metadata']).toEqual({ resourceVersion: '12', annotations: { 'platform.io/initial-events-end': 'true' } });
    }
  });

  it('decode a single payload down to the object', async () => {
    const c = await loadApiCodec();
    const payload = encodeWatchFrame('DELETED', c.encode({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'x' } })).subarray(4);
    expect(c.decodeWatchFrame(payload)).toEqual({ type: 'DELETED', object: { kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'x' } } });
  });

  it('keep a cut frame pending and refuse an oversized one', () => {
    const d = new WatchFrameDecoder({ maxFrameBytes: 10 });
    expect(d.push(hex('000000'))).toEqual([]);
    expect(d.pending).toBe(3);
    expect(() => d.push(hex('0b'))).toThrow(expect.objectContaining({ code: 'EWIRE', message: 'watch frame of 11 bytes exceeds the limit of 10' }));
  });
});

describe('JSON stream splitter', () => {
  const docs = ['{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a}{[\\"]"}}}', '{"type":"MODIFIED","object":{"s":"\\\\"}}', '[1,{"a":[]}]', '{"u":"é€😀"}'];
  const stream = Buffer.from(`${docs[0]}\n${docs[1]}${docs[2]}  \r\n\t${docs[3]}\n`);

  it.each([1, 2, 3, 4, 5, 7, 11, 13, 64, stream.length])('splits on value boundaries with chunks of %i bytes', (size) => {
    const s = new JsonStreamSplitter();
    const out: string[] = [];
    for (let i = 0; i < stream.length; i += size) for (const d of s.push(stream.subarray(i, i + size))) out.push(d.toString('utf8'));
    expect(out).toEqual(docs);
    expect(s.pending).toBe(false);
    for (const d of out) expect(() => JSON.parse(d) as unknown).not.toThrow();
  });

  it('reports a stream cut inside a document, and garbage between documents with its offset', () => {
    const s = new JsonStreamSplitter();
    expect(s.push('{"a":')).toEqual([]);
    expect(s.pending).toBe(true);
    expect(() => new JsonStreamSplitter().push('{} x')).toThrow(expect.objectContaining({ code: 'ESYNTAX', offset: 3 }));
  });
});
