import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../src/api/errors.js';
import { mergeObjects, mergedOrder, removePaths } from '../../../../src/apiserver/apply/merge.js';
import { FieldSet } from '../../../../src/apiserver/apply/fieldpath.js';
import { compareObjects, objectFieldSet } from '../../../../src/apiserver/apply/walk.js';
import { listTypes } from './list-types.js';

describe('objectFieldSet (the fields an object specifies)', () => {
  it.each([
    { name: 'map leaves, no membership for maps with content', obj: { metadata: { labels: { app: 'x' } }, data: { k: 'v' } }, fields: { 'f:data': { 'f:k': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } } },
    {
      name: 'associative list elements by key, key fields included',
      obj: { spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80, protocol: 'TCP' }] }] } },
      fields: {
        'f:spec': {
          'f:containers': {
            'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {}, 'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} } } },
          },
        },
      },
    },
    { name: 'set-type list by value', obj: { metadata: { finalizers: ['a', 'b'] } }, fields: { 'f:metadata': { 'f:finalizers': { 'v:"a"': {}, 'v:"b"': {} } } } },
    { name: 'atomic list and empty map are leaves', obj: { spec: { args: ['a'], sel: {} } }, fields: { 'f:spec': { 'f:args': {}, 'f:sel': {} } } },
    { name: 'null is a leaf', obj: { spec: { x: null } }, fields: { 'f:spec': { 'f:x': {} } } },
  ])('$name', ({ obj, fields }) => {
    expect(objectFieldSet(obj, listTypes, 'strict').toFieldsV1()).toEqual(fields);
  });

  it.each([
    { obj: { spec: { containers: [{ image: 'i' }] } }, message: 'failed to create typed patch object: .spec.containers: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)' },
    { obj: { spec: { containers: [{ name: 'a' }, { name: 'a' }] } }, message: 'failed to create typed patch object: .spec.containers: element 1: duplicate entries for key [name="a"]' },
  ])('a strict walk refuses $message', ({ obj, message }) => {
    expect(() => objectFieldSet(obj, listTypes, 'strict')).toThrow(ApiError);
    expect(() => objectFieldSet(obj, listTypes, 'strict')).toThrow(message);
  });

  it('a lenient walk names keyless elements by position and keeps the first duplicate', () => {
    const set = objectFieldSet({ spec: { containers: [{ image: 'i' }, { name: 'a' }, { name: 'a', image: 'j' }] } }, listTypes, 'lenient');
    expect(set.toFieldsV1()).toEqual({ 'f:spec': { 'f:containers': { 'k:{"name":"a"}': { '.': {}, 'f:name': {} }, 'i:0': { '.': {}, 'f:image': {} } } } });
  });
});

describe('compareObjects', () => {
  it('reports added, modified and removed fields; appearing maps and elements are added themselves', () => {
    const c = compareObjects(
      { metadata: { name: 'a' }, data: { k: 'v', gone: 'x' }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      { metadata: { name: 'a', labels: { app: 'x' } }, data: { k: 'w' }, spec: { containers: [{ name: 'c', image: 'i' }, { name: 'd', image: 'j' }] } },
      listTypes,
    );
    expect(c.added.toFieldsV1()).toEqual({
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': { 'f:containers': { 'k:{"name":"d"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
    });
    expect(c.modified.toFieldsV1()).toEqual({ 'f:data': { 'f:k': {} } });
    expect(c.removed.toFieldsV1()).toEqual({ 'f:data': { 'f:gone': {} } });
  });
  it('metadata, spec and status appearing are not additions of the struct; a map appearing is', () => {
    const c = compareObjects({}, { spec: { x: 1 }, data: { a: 'b' } }, listTypes);
    expect(c.added.toFieldsV1()).toEqual({ 'f:data': { '.': {}, 'f:a': {} }, 'f:spec': { 'f:x': {} } });
  });
  it('an atomic list is one leaf', () => {
    const c = compareObjects({ spec: { args: ['a'] } }, { spec: { args: ['a', 'b'] } }, listTypes);
    expect(c.modified.paths()).toEqual([['f:spec', 'f:args']]);
  });
});

describe('mergeObjects and removePaths', () => {
  it('merges maps by key, associative lists by element, replaces atomic lists', () => {
    const live = { data: { a: '1', b: '2' }, spec: { args: ['x'], containers: [{ name: 'a', image: 'i' }, { name: 'b', image: 'j' }] } };
    const config = { data: { b: '3' }, spec: { args: ['y'], containers: [{ name: 'b', image: 'k' }, { name: 'c', image: 'l' }] } };
    expect(mergeObjects(live, config, listTypes)).toEqual({
      data: { a: '1', b: '3' },
      spec: { args: ['y'], containers: [{ name: 'a', image: 'i' }, { name: 'b', image: 'k' }, { name: 'c', image: 'l' }] },
    });
    expect(live.data.b).toBe('2');
  });
  it.each([
    { live: ['a', 'b', 'c'], config: ['c', 'a'], out: ['b', 'c', 'a'] },
    { live: ['a', 'b'], config: ['x', 'b'], out: ['a', 'x', 'b'] },
    { live: [], config: ['a'], out: ['a'] },
    { live: ['a', 'b'], config: ['b', 'a'], out: ['b', 'a'] },
  ])('orders a merged list $live + $config as upstream', ({ live, config, out }) => {
    expect(mergedOrder(live, config)).toEqual(out);
  });
  it('removes leaves and elements; an emptied map goes, its parent stays', () => {
    const obj = { metadata: { labels: { a: '1' }, finalizers: ['x', 'y'] }, spec: { containers: [{ name: 'c', image: 'i' }, { name: 'd' }] } };
    const out = removePaths(
      obj,
      FieldSet.of([
        ['f:metadata', 'f:labels', 'f:a'],
        ['f:metadata', 'f:finalizers', 'v:"x"'],
        ['f:spec', 'f:containers', 'k:{"name":"c"}'],
      ]),
      listTypes,
    );
    expect(out).toEqual({ metadata: { finalizers: ['y'] }, spec: { containers: [{ name: 'd' }] } });
    expect(obj.metadata.labels.a).toBe('1');
  });
});
