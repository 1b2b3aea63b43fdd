import { describe, expect, it } from 'vitest';
import { type FieldPath, FieldSet, FieldsV1Error, compareElements, keyKey, pathString, valueKey } from '../../../../src/apiserver/apply/fieldpath.js';

describe('FieldsV1 round trips', () => {
  const table: Array<{ name: string; doc: unknown; paths: FieldPath[] }> = [
    { name: 'map key below a struct', doc: { 'f:metadata': { 'f:labels': { 'f:app': {} } } }, paths: [['f:metadata', 'f:labels', 'f:app']] },
    {
      name: 'associative list element with its own membership',
      doc: { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } },
      paths: [
        ['f:spec', 'f:containers', 'k:{"name":"c"}'],
        ['f:spec', 'f:containers', 'k:{"name":"c"}', 'f:image'],
        ['f:spec', 'f:containers', 'k:{"name":"c"}', 'f:name'],
      ],
    },
    { name: 'set-type primitive list', doc: { 'f:metadata': { 'f:finalizers': { '.': {}, 'v:"a.io/x"': {} } } }, paths: [['f:metadata', 'f:finalizers'], ['f:metadata', 'f:finalizers', 'v:"a.io/x"']] },
    { name: 'positional element', doc: { 'f:spec': { 'f:args': { 'i:0': {}, 'i:10': {}, 'i:2': {} } } }, paths: [['f:spec', 'f:args', 'i:0'], ['f:spec', 'f:args', 'i:2'], ['f:spec', 'f:args', 'i:10']] },
    {
      name: 'multi-field key, numbers compared as numbers',
      doc: { 'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {} , 'f:x': {} }, 'k:{"containerPort":443,"protocol":"TCP"}': {} } },
      paths: [['f:ports', 'k:{"containerPort":80,"protocol":"TCP"}'], ['f:ports', 'k:{"containerPort":80,"protocol":"TCP"}', 'f:x'], ['f:ports', 'k:{"containerPort":443,"protocol":"TCP"}']],
    },
    { name: 'empty', doc: {}, paths: [] },
  ];
  it.each(table)('$name', ({ doc, paths }) => {
    const set = FieldSet.fromFieldsV1(doc);
    expect(set.paths()).toEqual(paths);
    expect(set.toFieldsV1()).toEqual(doc);
    expect(JSON.stringify(FieldSet.of(paths).toFieldsV1())).toBe(JSON.stringify(FieldSet.fromFieldsV1(doc).toFieldsV1()));
  });

  it.each([
    '{"f:metadata":{"f:labels":{".":{},"f:run":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{}}},"f:dnsPolicy":{},"f:restartPolicy":{}}}',
    '{"f:status":{"f:conditions":{"k:{\\"type\\":\\"ContainersReady\\"}":{".":{},"f:status":{},"f:type":{}},"k:{\\"type\\":\\"Ready\\"}":{".":{},"f:status":{},"f:type":{}}},"f:phase":{},"f:podIPs":{".":{},"k:{\\"ip\\":\\"10.1.0.5\\"}":{".":{},"f:ip":{}}}}}',
  ])('reads and writes kube-apiserver documents byte for byte: %s', (text) => {
    expect(JSON.stringify(FieldSet.fromFieldsV1(JSON.parse(text)).toFieldsV1())).toBe(text);
  });

  it('writes keys in upstream order: ".", fields, keys, values, indexes', () => {
    const set = FieldSet.of([['f:a', 'i:1'], ['f:a', 'v:"z"'], ['f:a', 'k:{"n":"b"}'], ['f:a', 'f:y'], ['f:a', 'f:b'], ['f:a']]);
    expect(Object.keys(set.toFieldsV1()['f:a']!)).toEqual(['.', 'f:b', 'f:y', 'k:{"n":"b"}', 'v:"z"', 'i:1']);
  });

  const bad: Array<{ doc: unknown; field: string }> = [
    { doc: [], field: 'fieldsV1' },
    { doc: { 'x:y': {} }, field: 'fieldsV1["x:y"]' },
    { doc: { 'f:a': { 'k:[1]': {} } }, field: 'fieldsV1["f:a"]["k:[1]"]' },
    { doc: { 'f:a': { 'v:{': {} } }, field: 'fieldsV1["f:a"]["v:{"]' },
    { doc: { 'f:a': { 'i:-1': {} } }, field: 'fieldsV1["f:a"]["i:-1"]' },
    { doc: { 'f:a': { '.': { 'f:b': {} } } }, field: 'fieldsV1["f:a"]["."]' },
    { doc: { 'f:a': 'x' }, field: 'fieldsV1["f:a"]' },
  ];
  it.each(bad)('refuses $field', ({ doc, field }) => {
    const err = (() => {
      try {
        FieldSet.fromFieldsV1(doc);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(FieldsV1Error);
    expect((err as FieldsV1Error).field).toBe(field);
  });
});

describe('pathString', () => {
  it.each([
    [['f:data', 'f:key'], '.data.key'],
    [['f:spec', 'f:containers', keyKey({ name: 'c' }), 'f:image'], '.spec.containers[name="c"].image'],
    [['f:ports', keyKey({ protocol: 'TCP', containerPort: 80 })], '.ports[containerPort=80,protocol="TCP"]'],
    [['f:metadata', 'f:finalizers', valueKey('a/b')], '.metadata.finalizers[="a/b"]'],
    [['f:args', 'i:3'], '.args[3]'],
  ] as Array<[FieldPath, string]>)('%j → %s', (path, text) => {
    expect(pathString(path)).toBe(text);
  });
});

describe('set operations', () => {
  const a = FieldSet.of([['f:a'], ['f:b', 'f:c'], ['f:b', 'f:d']]);
  const b = FieldSet.of([['f:b', 'f:c'], ['f:e']]);
  it('union, difference, intersection', () => {
    expect(a.union(b).paths()).toEqual([['f:a'], ['f:b', 'f:c'], ['f:b', 'f:d'], ['f:e']]);
    expect(a.difference(b).paths()).toEqual([['f:a'], ['f:b', 'f:d']]);
    expect(a.intersection(b).paths()).toEqual([['f:b', 'f:c']]);
    expect(a.difference(a).isEmpty()).toBe(true);
    expect(a.equals(FieldSet.fromFieldsV1(a.toFieldsV1()))).toBe(true);
  });
  it('withoutPrefixes drops whole subtrees', () => {
    expect(a.withoutPrefixes(FieldSet.of([['f:b']])).paths()).toEqual([['f:a']]);
  });
  it('has and hasBelow', () => {
    expect(a.has(['f:b', 'f:c'])).toBe(true);
    expect(a.has(['f:b'])).toBe(false);
    expect(a.hasBelow(['f:b'])).toBe(true);
    expect(a.hasBelow(['f:a'])).toBe(false);
  });
  it('orders elements as upstream', () => {
    expect(['i:2', 'v:1', 'k:{"a":1}', 'f:z', 'i:10'].sort(compareElements)).toEqual(['f:z', 'k:{"a":1}', 'v:1', 'i:2', 'i:10']);
    expect(['v:"b"', 'v:true', 'v:2', 'v:"a"'].sort(compareElements)).toEqual(['v:2', 'v:"a"', 'v:"b"', 'v:true']);
  });
});
