// Properties over generated input, with a fixed seed (FUZZ_SEED overrides):
// the strict JSON reader agrees with JSON.parse, any bytes decode to an object
// or a CodecError (never another exception), and any JSON-form object the
// schema accepts survives encode/decode.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCodecError, JsonStreamSplitter, loadApiCodec, parseJsonStrict } from '../../../../src/api/codec/index.js';
import { POD } from '../../../fixtures/api/objects.js';

const envSeed = Number(process.env['FUZZ_SEED']);
const SEED = Number.isSafeInteger(envSeed) ? envSeed : 0x5eed_c0de;
const check = <Ts extends [unknown, ...unknown[]]>(prop: fc.IPropertyWithHooks<Ts>, numRuns = 300): void => fc.assert(prop, { seed: SEED, numRuns });

describe('parseJsonStrict against JSON.parse', () => {
  it('reads every valid document as JSON.parse does', () => {
    check(
      fc.property(fc.jsonValue(), fc.boolean(), (v, pretty) => {
        const text = JSON.stringify(v, null, pretty ? 2 : undefined);
        expect(parseJsonStrict(text).value).toEqual(JSON.parse(text));
      }),
    );
  });

  it('refuses exactly what JSON.parse refuses, with a CodecError', () => {
    const mutated = fc.tuple(fc.json(), fc.nat(), fc.constantFrom('', '}', ']', ',', '"', ':', '\\', 'x', '1', ' ', '\u0001', '{', '[')).map(([t, at, ins]) => {
      const i = at % (t.length + 1);
      return t.slice(0, i) + ins + t.slice(i + (ins === '' ? 1 : 0));
    });
    check(
      fc.property(mutated, (text) => {
        let expected: unknown;
        let parseFailed = false;
        try {
          expected = JSON.parse(text);
        } catch {
          parseFailed = true;
        }
        if (parseFailed) expect(() => parseJsonStrict(text)).toThrow(expect.objectContaining({ code: 'ESYNTAX' }));
        else expect(parseJsonStrict(text).value).toEqual(expected);
      }),
      1000,
    );
  });
});

describe('decoding arbitrary bytes', () => {
  it('gives an object or a CodecError, for the envelope and for a raw Pod', async () => {
    const c = await loadApiCodec();
    const valid = c.encodeRaw(POD, { apiVersion: 'v1', kind: 'Pod' });
    const corrupt = fc.tuple(fc.nat(valid.length - 1), fc.integer({ min: 0, max: 255 }), fc.nat(valid.length)).map(([at, byte, cut]) => {
      const b = Buffer.from(valid);
      b[at] = byte;
      return b.subarray(0, Math.max(cut, at + 1));
    });
    check(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 64 }), corrupt), (bytes) => {
        for (const run of [() => c.decodeRaw(bytes, { apiVersion: 'v1', kind: 'Pod' }), () => c.decode(Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0]), bytes]))]) {
          try {
            expect(typeof run()).toBe('object');
          } catch (e) {
            if (!isCodecError(e)) throw e;
          }
        }
      }),
      1000,
    );
  });
});

describe('the JSON stream splitter', () => {
  it('returns the documents of any stream of JSON objects, however it is cut', () => {
    check(
      fc.property(fc.array(fc.dictionary(fc.string(), fc.jsonValue()), { minLength: 1, maxLength: 5 }), fc.array(fc.nat(), { maxLength: 8 }), (docs, cuts) => {
        const stream = Buffer.from(docs.map((d) => JSON.stringify(d)).join('\n'));
        const points = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
        const s = new JsonStreamSplitter();
        const out: unknown[] = [];
        let prev = 0;
        for (const p of [...points, stream.length]) {
          for (const d of s.push(stream.subarray(prev, p))) out.push(JSON.parse(d.toString('utf8')));
          prev = p;
        }
        expect(out).toEqual(docs.map((d) => JSON.parse(JSON.stringify(d)) as unknown));
      }),
    );
  });
});
