// Strict decoding of request bodies (§4.10): unknown and duplicate fields by
// path, type errors naming the field, the depth limit and syntax errors with
// their byte offset, for JSON and YAML.
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, loadApiCodec, parseJsonStrict, parseYamlStrict } from '../../../../src/api/codec/index.js';
import { FIXTURES } from '../../../fixtures/api/objects.js';

const POD = { apiVersion: 'v1', kind: 'Pod' };

describe('parseJsonStrict', () => {
  it.each(FIXTURES.map((f) => [f.name, f.obj] as const))('reads %s as JSON.parse does', (_n, obj) => {
    const text = JSON.stringify(obj, null, 1);
    expect(parseJsonStrict(Buffer.from(text))).toEqual({ value: JSON.parse(text) as unknown, duplicates: [] });
  });

  it.each([
    ['scalars and escapes', '[1,-2.5e3,0,true,false,null,"a\\"b\\u00e9\\n",{}]', [1, -2500, 0, true, false, null, 'a"bé\n', {}]],
    ['surrounding whitespace', ' \n\t{"a" : [ ] }\r\n', { a: [] }],
    ['a __proto__ key as data', '{"__proto__":{"x":1}}', JSON.parse('{"__proto__":{"x":1}}') as unknown],
  ])('%s', (_n, text, value) => {
    const got = parseJsonStrict(text);
    expect(got.value).toEqual(value);
    expect(Object.getPrototypeOf(got.value)).toBe(Object.getPrototypeOf(value));
  });

  it('reports every duplicate key by path and keeps the last value', () => {
    const got = parseJsonStrict('{"metadata":{"name":"a","name":"b"},"spec":{"containers":[{"name":"x"},{"name":"y","name":"z"}]},"spec":{"containers":[]}}');
    expect(got.duplicates).toEqual(['metadata.name', 'spec.containers[1].name', 'spec']);
    expect(got.value).toEqual({ metadata: { name: 'b' }, spec: { containers: [] } });
  });

  it.each([
    ['', 0, 'unexpected end of JSON input looking for beginning of value'],
    ['{"a":1,}', 7, 'invalid character "}" looking for beginning of object key string'],
    ['{"é": x}', 7, 'invalid character "x" looking for beginning of value'],
    ['{"a":1} {}', 8, 'invalid character "{" after top-level value'],
    ['[1 2]', 3, 'invalid character "2" after array element'],
    ['{"a" 1}', 5, 'invalid character "1" after object key'],
    ['{"a":"b\u0001"}', 7, 'invalid character "\\u0001" in string literal'],
    ['{"a":"\\x"}', 5, 'invalid escape in string literal'],
    ['{"a":-}', 5, 'invalid character "}" in numeric literal'],
    ['{"a":tru}', 5, 'invalid character "t" looking for beginning of value'],
    ['{"a":"open', 10, 'unexpected end of JSON input in string'],
  ])('%j fails at byte %i', (text, offset, what) => {
    expect(() => parseJsonStrict(Buffer.from(text))).toThrow(expect.objectContaining({ code: 'ESYNTAX', offset, message: `invalid JSON at byte offset ${offset}: ${what}` }));
  });

  it('stops at the depth limit naming the path', () => {
    expect(() => parseJsonStrict('{"spec":{"a":[[{"b":{}}]]}}', 5)).toThrow(
      expect.objectContaining({ code: 'EDEPTH', field: 'spec.a[0][0].b', message: 'JSON nesting exceeds the maximum depth of 5 at "spec.a[0][0].b"' }),
    );
    expect(parseJsonStrict('{"spec":{"a":[[{"b":1}]]}}', 5).value).toEqual({ spec: { a: [[{ b: 1 }]] } });
  });

  it(`accepts ${MAX_JSON_DEPTH} levels and refuses one more without exhausting the stack`, () => {
    const nested = (n: number): string => '['.repeat(n) + ']'.repeat(n);
    expect(() => parseJsonStrict(nested(MAX_JSON_DEPTH))).not.toThrow();
    expect(() => parseJsonStrict(nested(MAX_JSON_DEPTH + 1))).toThrow(expect.objectContaining({ code: 'EDEPTH' }));
  });
});

describe('decodeJsonStrict', () => {
  it('reports unknown fields by path and drops them, knowing Go-inlined fields', async () => {
    const c = await loadApiCodec();
    const body = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'a', foo: 1 },
      spec: {
        containers: [{ name: 'c', bar: 2, livenessProbe: { httpGet: { port: 80 }, baz: true }, env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k', nope: 1 } } }] }],
        volumes: [{ name: 'v', emptyDir: {}, configMap: { name: 'cm' } }],
        foo: {},
      },
    };
    const got = c.decodeJsonStrict(JSON.stringify(body), POD);
    expect(got.unknownFields).toEqual(['metadata.foo', 'spec.containers[0].bar', 'spec.containers[0].livenessProbe.baz', 'spec.containers[0].env[0].valueFrom.configMapKeyRef.nope', 'spec.foo']);
    expect(got.duplicateFields).toEqual([]);
    expect(got.typeErrors).toEqual([]);
    expect(got.object).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'a' },
      spec: { containers: [{ name: 'c', livenessProbe: { httpGet: { port: 80 } }, env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k' } } }] }], volumes: [{ name: 'v', emptyDir: {}, configMap: { name: 'cm' } }] },
    });
  });

  it('reports values of the wrong type by path with the expected type', async () => {
    const c = await loadApiCodec();
    const body = '{"metadata":{"name":5,"labels":{"a":true},"creationTimestamp":"soon","generation":1.5},"spec":{"containers":[{"name":"c","ports":[{"containerPort":4294967296}],"resources":{"limits":{"cpu":"lots"}}}],"hostNetwork":"yes","tolerations":{}}}';
    const got = c.decodeJsonStrict(body, POD);
    expect(got.typeErrors.map((e) => `${e.field}: ${e.detail ?? ''}`)).toEqual([
      'metadata.name: expected string, got number',
      'metadata.labels.a: expected string, got boolean',
      'metadata.creationTimestamp: expected RFC 3339 time string, got string',
      'metadata.generation: expected int64, got number',
      'spec.containers[0].ports[0].containerPort: expected int32, got number',
      'spec.containers[0].resources.limits.cpu: expected quantity (string or number), got string',
      'spec.hostNetwork: expected boolean, got string',
      'spec.tolerations: expected array, got object',
    ]);
    expect(got.typeErrors[0]).toMatchObject({ type: 'FieldValueTypeInvalid', value: 5 });
    expect(got.object).toEqual({ metadata: { labels: {} }, spec: { containers: [{ name: 'c', ports: [{}], resources: { limits: {} } }] } });
  });

  it('checks bytes fields as base64 and accepts kind/apiVersion on list items, not on nested objects', async () => {
    const c = await loadApiCodec();
    expect(c.decodeJsonStrict('{"data":{"a":"not base64!"}}', { apiVersion: 'v1', kind: 'Secret' }).typeErrors.map((e) => e.field)).toEqual(['data.a']);
    const list = c.decodeJsonStrict('{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[{"kind":"Pod","apiVersion":"v1","spec":{"containers":[{"kind":"x"}]}}]}', { apiVersion: 'v1', kind: 'PodList' });
    expect(list.unknownFields).toEqual(['items[0].spec.containers[0].kind']);
  });

  it('returns duplicates from the parser and refuses a kind it does not serve', async () => {
    const c = await loadApiCodec();
    expect(c.decodeJsonStrict('{"metadata":{"name":"a","name":"b"}}', POD).duplicateFields).toEqual(['metadata.name']);
    expect(() => c.decodeJsonStrict('{}', { apiVersion: 'apps/v1', kind: 'Deployment' })).toThrow(expect.objectContaining({ code: 'EKIND' }));
  });
});

describe('YAML bodies', () => {
  it('report unknown and duplicate fields like JSON', async () => {
    const c = await loadApiCodec();
    const got = c.decodeYamlStrict('apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  name: b\n  extra: 1\nspec:\n  containers:\n  - name: c\n    image: i\n    bogus: true\n', POD);
    expect(got.duplicateFields).toEqual(['metadata.name']);
    expect(got.unknownFields).toEqual(['metadata.extra', 'spec.containers[0].bogus']);
    expect(got.object).toEqual({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'b' }, spec: { containers: [{ name: 'c', image: 'i' }] } });
  });

  it('refuse several documents, bad syntax with its offset, and excessive depth', () => {
    expect(() => parseYamlStrict('a: 1\n---\nb: 2\n')).toThrow(expect.objectContaining({ code: 'ESYNTAX', message: 'YAML body holds more than one document' }));
    expect(() => parseYamlStrict('a: [1, 2\n')).toThrow(expect.objectContaining({ code: 'ESYNTAX' }));
    expect(() => parseYamlStrict('a:\n  b:\n    c: 1\n', 2)).toThrow(expect.objectContaining({ code: 'EDEPTH', field: 'a.b.c' }));
    expect(parseYamlStrict('')).toEqual({ value: null, duplicates: [] });
  });
});
