import { describe, expect, it } from 'vitest';
import { isStorageError } from '../../../../src/apiserver/storage/interface.js';
import { toStorageEvent } from '../../../../src/apiserver/storage/etcd-watch.js';
import { classifyEtcdError, parseEtcdEndpoints, prefixRangeEnd, toStored, type WireKeyValue } from '../../../../src/apiserver/storage/etcd-wire.js';

const kv = (key: string, value: string, createRevision: number, modRevision: number): WireKeyValue => ({ key: Buffer.from(key), value: Buffer.from(value), createRevision, modRevision, version: 1 });

describe('prefixRangeEnd', () => {
  it.each([
    ['/registry/', '/registry0'],
    ['a', 'b'],
    ['a\xff', 'b'],
    ['', '\x00'],
  ])('%j -> %j', (prefix, end) => {
    expect(prefixRangeEnd(Buffer.from(prefix, 'latin1')).toString('latin1')).toBe(end);
  });
  it('a prefix of only 0xff bytes ranges to the end of the keyspace', () => {
    expect(prefixRangeEnd(Buffer.from([0xff, 0xff]))).toEqual(Buffer.from([0]));
  });
});

describe('parseEtcdEndpoints', () => {
  it.each([
    [['http://127.0.0.1:2379'], ['127.0.0.1:2379']],
    [['127.0.0.1:2379', ' http://etcd-1:2379/ '], ['127.0.0.1:2379', 'etcd-1:2379']],
    [['http://[::1]:2379'], ['[::1]:2379']],
    [['', 'a:1'], ['a:1']],
  ])('%j -> %j', (input, out) => {
    expect(parseEtcdEndpoints(input)).toEqual(out);
  });
  it.each([[['https://127.0.0.1:2379']], [['127.0.0.1']], [['unix:///run/etcd.sock']], [['a:70000']], [[]], [['']]])('refuses %j naming the entry', (input) => {
    let err: unknown;
    try {
      parseEtcdEndpoints(input);
    } catch (e) {
      err = e;
    }
    expect(isStorageError(err, 'Unavailable')).toBe(true);
    if (input[0]) expect((err as Error).message).toContain(input[0]);
  });
});

describe('classifyEtcdError', () => {
  it.each([
    [11, 'etcdserver: mvcc: required revision has been compacted', 'compacted'],
    [11, 'etcdserver: mvcc: required revision is a future revision', 'future'],
    [14, 'connect ECONNREFUSED 127.0.0.1:1', 'unavailable'],
    [4, 'Deadline exceeded', 'other'],
    [3, 'etcdserver: request is too large', 'other'],
  ])('code %i %j -> %s', (code, details, kind) => {
    expect(classifyEtcdError(code, details)).toBe(kind);
  });
});

describe('toStored and toStorageEvent', () => {
  it('strips the store prefix from keys', () => {
    expect(toStored(kv('/r/pods/a', 'v', 2, 3), 3)).toMatchObject({ key: 'pods/a', createRevision: 2, modRevision: 3 });
  });
  it('maps puts (with or without a previous value) and deletes (revision = the delete, prev = the last value)', () => {
    expect(toStorageEvent({ type: 'PUT', kv: kv('/r/a', '2', 5, 7), prevKv: kv('/r/a', '1', 5, 5) }, 3, 'a')).toMatchObject({ type: 'put', kv: { key: 'a', modRevision: 7 }, prev: { modRevision: 5 } });
    expect(toStorageEvent({ type: 'PUT', kv: kv('/r/a', '1', 5, 5), prevKv: null }, 3, 'a')).toMatchObject({ type: 'put', prev: undefined });
    expect(toStorageEvent({ type: 'DELETE', kv: kv('/r/a', '', 0, 9), prevKv: kv('/r/a', '2', 5, 7) }, 3, 'a')).toMatchObject({ type: 'delete', key: 'a', revision: 9, prev: { modRevision: 7 } });
  });
  it('a delete whose previous value was compacted away is Compacted', () => {
    let err: unknown;
    try {
      toStorageEvent({ type: 'DELETE', kv: kv('/r/a', '', 0, 9), prevKv: null }, 3, 'a');
    } catch (e) {
      err = e;
    }
    expect(isStorageError(err, 'Compacted')).toBe(true);
  });
});
