// The decoded form's shape, which a cache of decoded objects pays for per
// object: plain objects (whatever makes them), arrays of exactly their
// elements, kind/apiVersion first, absent fields absent, and shared copies
// of repeated short strings and timestamps that read as ordinary strings.
import { describe, expect, it } from 'vitest';
import { loadApiCodec } from '../../../../src/api/codec/index.js';
import { MAX_POOLED_LENGTH, internJsonStrings, internString, internTime, pooledUtf8 } from '../../../../src/api/codec/intern.js';
import { POD } from '../../../fixtures/api/objects.js';

/** Every object and array inside `v`, with its path. */
function* walk(v: unknown, path = ''): Generator<[string, object]> {
  if (typeof v !== 'object' || v === null) return;
  yield [path, v];
  for (const [k, x] of Object.entries(v)) yield* walk(x, `${path}.${k}`);
}

describe('decoded objects', () => {
  it('are plain objects and arrays, equal to the JSON form, with no undefined-valued keys', async () => {
    const c = await loadApiCodec();
    const pod = { ...POD, apiVersion: 'v1', kind: 'Pod' };
    const got = c.decode(c.encode(pod)).object;
    // Nulls are Go's zero values: absent once decoded.
    expect(got).toEqual(JSON.parse(JSON.stringify(pod), (_k, v: unknown) => (v === null ? undefined : v)));
    expect(Object.keys(got).slice(0, 2)).toEqual(['kind', 'apiVersion']);
    for (const [path, o] of walk(got)) {
      const proto: unknown = Object.getPrototypeOf(o);
      expect(proto === Object.prototype || proto === Array.prototype, path).toBe(true);
      expect((o as { constructor: unknown }).constructor, path).toBe(Array.isArray(o) ? Array : Object);
      for (const [k, x] of Object.entries(o)) expect(x, `${path}.${k}`).not.toBeUndefined();
    }
    expect(structuredClone(got)).toEqual(got);
  });

  it('keeps every element of a list whose elements are interleaved with other fields', async () => {
    const c = await loadApiCodec();
    const tm = { apiVersion: 'v1', kind: 'Pod' };
    // The spec's fields without the spec's own tag and length (each under 128 bytes: one length byte).
    const inner = (spec: object): Buffer => c.encodeRaw({ spec }, tm).subarray(2);
    const body = Buffer.concat([inner({ containers: [{ name: 'a' }] }), inner({ nodeName: 'n' }), inner({ containers: [{ name: 'b' }] })]);
    const raw = Buffer.concat([Buffer.from([0x12, body.length]), body]);
    expect(c.decodeRaw(raw, tm)).toEqual({ spec: { containers: [{ name: 'a' }, { name: 'b' }], nodeName: 'n' } });
  });
});

describe('string pools', () => {
  it.each([
    ['a short string', 'registry.local/app:1.0'],
    ['an empty string', ''],
    ['a string at the length limit', 'x'.repeat(MAX_POOLED_LENGTH)],
    ['a longer string (not pooled)', 'y'.repeat(MAX_POOLED_LENGTH + 1)],
  ])('%s reads back unchanged', (_what, s) => {
    expect(internString(s)).toBe(s);
    expect(internString(`${s}`)).toBe(s);
  });

  it('stay correct after they fill and start over', () => {
    for (let i = 0; i < 20_000; i++) expect(internString(`v${i % 9_000}`)).toBe(`v${i % 9_000}`);
    for (let i = 0; i < 3_000; i++) expect(internTime(i, (s) => `t${s}`)).toBe(`t${i}`);
    // The cached form is returned without formatting again.
    expect(internTime(2_999, () => 'other')).toBe('t2999');
  });
});

describe('pooledUtf8', () => {
  it.each([
    ['ASCII', 'registry.local/app:1.0'],
    ['empty', ''],
    ['multi-byte UTF-8', 'naïve — 😀'],
    ['at the length limit', 'z'.repeat(MAX_POOLED_LENGTH)],
    ['over the length limit', 'w'.repeat(MAX_POOLED_LENGTH + 1)],
  ])('%s: decodes what the bytes say, first and every later time, however the buffer changes afterwards', (_what, text) => {
    const buf = Buffer.from(`..${text}..`);
    const end = buf.length - 2;
    const first = pooledUtf8(buf, 2, end);
    expect(first).toBe(text);
    expect(pooledUtf8(Buffer.from(buf), 2, end)).toBe(text);
    buf.fill(0x41);
    expect(first).toBe(text);
  });

  it('tells apart strings of the same length sharing a slot, and many strings over the pool size', () => {
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 20_000; i++) {
        const s = `k${i.toString(36).padStart(5, '0')}`;
        expect(pooledUtf8(Buffer.from(s), 0, s.length)).toBe(s);
      }
    }
  });
});

describe('decode with omitManagedFields', () => {
  const managed = [{ manager: 'platform-apiserver', operation: 'Update', apiVersion: 'v1', time: '2026-11-24T10:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {} } } } }];

  it('leaves metadata.managedFields out of the object and of every list item, and nothing else', async () => {
    const c = await loadApiCodec();
    const pod = { ...POD, apiVersion: 'v1', kind: 'Pod', metadata: { ...(POD['metadata'] as object), managedFields: managed } };
    const full = c.decode(c.encode(pod)).object;
    expect((full['metadata'] as Record<string, unknown>)['managedFields']).toEqual(managed);
    const { managedFields: _m, ...meta } = full['metadata'] as Record<string, unknown>;
    expect(c.decode(c.encode(pod), { omitManagedFields: true }).object).toEqual({ ...full, metadata: meta });
    const { kind: _k, apiVersion: _a, ...item } = pod;
    const list = { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '7' }, items: [item, item] };
    const got = c.decode(c.encode(list), { omitManagedFields: true }).object;
    expect((got['items'] as Record<string, unknown>[]).map((i) => 'managedFields' in (i['metadata'] as object))).toEqual([false, false]);
    // The option holds for its own call only.
    expect('managedFields' in (c.decode(c.encode(pod)).object['metadata'] as object)).toBe(true);
  });

  it('still refuses a truncated object, and the next decode is unaffected', async () => {
    const c = await loadApiCodec();
    const pod = { ...POD, apiVersion: 'v1', kind: 'Pod', metadata: { ...(POD['metadata'] as object), managedFields: managed } };
    const bytes = c.encode(pod);
    expect(() => c.decode(bytes.subarray(0, bytes.length - 3), { omitManagedFields: true })).toThrow();
    expect('managedFields' in (c.decode(bytes).object['metadata'] as object)).toBe(true);
  });
});

describe('internJsonStrings', () => {
  it('leaves every value of a parsed object as it was, at any depth, arrays included', () => {
    const text = JSON.stringify({ ...POD, extra: [['registry.local/app:1.0', 1, null, { deep: 'x'.repeat(80) }]] });
    const v: unknown = JSON.parse(text);
    internJsonStrings(v);
    expect(v).toEqual(JSON.parse(text));
  });

  it('stops at its depth bound instead of overflowing the stack', () => {
    let v: Record<string, unknown> = { s: 'a string longer than ten' };
    for (let i = 0; i < 10_000; i++) v = { n: v };
    expect(() => internJsonStrings(v)).not.toThrow();
  });
});
