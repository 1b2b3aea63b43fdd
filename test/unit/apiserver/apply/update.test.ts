import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../src/api/errors.js';
import { applyConfig } from '../../../../src/apiserver/apply/apply.js';
import { type UpdateOptions, recordUpdate } from '../../../../src/apiserver/apply/update.js';
import type { JsonObject } from '../../../../src/apiserver/apply/walk.js';
import { listTypes } from './list-types.js';

const T1 = '2026-01-01T00:00:01Z';
const T2 = '2026-01-01T00:00:02Z';
const T3 = '2026-01-01T00:00:03Z';

const by = (manager: string, extra: Partial<UpdateOptions> = {}): UpdateOptions => ({ manager, apiVersion: 'v1', now: T2, listTypes, ...extra });
const cm = (data: Record<string, string>, metadata: JsonObject = {}): JsonObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', uid: 'u', resourceVersion: '5', ...metadata }, data });
const entries = (o: JsonObject): unknown => (o.metadata as JsonObject).managedFields;
const entry = (manager: string, time: string, fieldsV1: JsonObject, extra: JsonObject = {}): JsonObject => ({ manager, operation: 'Update', apiVersion: 'v1', time, fieldsType: 'FieldsV1', fieldsV1, ...extra });

describe('recordUpdate', () => {
  it('on create gives the manager every field, maps that appear with their `.`, identity metadata left out', () => {
    const out = recordUpdate(undefined, cm({ a: '1' }, { labels: { app: 'x' } }), by('kubectl'));
    expect(entries(out)).toEqual([entry('kubectl', T2, { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } })]);
  });

  it('moves changed fields to the writer and drops entries left empty', () => {
    const created = recordUpdate(undefined, cm({ a: '1', b: '2' }), by('one', { now: T1 }));
    const changed = recordUpdate(created, { ...cm({ a: '9', b: '2', c: '3' }), metadata: (created.metadata as JsonObject) }, by('two'));
    expect(entries(changed)).toEqual([entry('one', T1, { 'f:data': { '.': {}, 'f:b': {} } }), entry('two', T2, { 'f:data': { 'f:a': {}, 'f:c': {} } })]);
    const removed = recordUpdate(changed, cm({ a: '9', c: '3' }), by('two', { now: T3 }));
    // A member with nothing below is written `{}`; a write that only removes gains nothing, so its time stays.
    expect(entries(removed)).toEqual([entry('one', T1, { 'f:data': {} }), entry('two', T2, { 'f:data': { 'f:a': {}, 'f:c': {} } })]);
  });

  it('adds to the same manager’s entry and leaves it (and its time) alone when nothing changed', () => {
    const created = recordUpdate(undefined, cm({ a: '1' }), by('one', { now: T1 }));
    const more = recordUpdate(created, cm({ a: '1', b: '2' }), by('one'));
    expect(entries(more)).toEqual([entry('one', T2, { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } })]);
    expect(recordUpdate(more, cm({ a: '1', b: '2' }), by('one', { now: T3 }))).toEqual(more);
  });

  it('keys Update entries by version and subresource, as upstream', () => {
    const created = recordUpdate(undefined, cm({ a: '1' }), by('one', { now: T1 }));
    const v2 = recordUpdate(created, cm({ a: '2' }), by('one', { apiVersion: 'v2' }));
    expect(entries(v2)).toEqual([entry('one', T1, { 'f:data': {} }), { ...entry('one', T2, { 'f:data': { 'f:a': {} } }), apiVersion: 'v2' }]);
    const status = recordUpdate(created, cm({ a: '2' }), by('one', { subresource: 'status' }));
    expect((entries(status) as JsonObject[]).map((e) => [e.manager, e.subresource])).toEqual([['one', undefined], ['one', 'status']]);
  });

  it('records status writes with their subresource', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: 'n' } };
    const created = recordUpdate(undefined, pod, by('scheduler', { now: T1 }));
    const out = recordUpdate(created, { ...pod, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, by('agent', { subresource: 'status' }));
    expect(entries(out)).toEqual([
      entry('scheduler', T1, { 'f:spec': { 'f:nodeName': {} } }),
      entry('agent', T2, { 'f:status': { 'f:conditions': { '.': {}, 'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:type': {} } }, 'f:phase': {} } }, { subresource: 'status' }),
    ]);
  });

  it('lists Apply entries first, then Update entries by time', () => {
    const created = recordUpdate(undefined, cm({ a: '1' }), by('zeta', { now: T1 }));
    const applied = applyConfig(created, cm({ b: '2' }), { manager: 'alpha', force: false, apiVersion: 'v1', now: T3, listTypes });
    const out = recordUpdate(applied, cm({ a: '1', b: '2', c: '3' }), by('beta'));
    expect((entries(out) as JsonObject[]).map((e) => `${e.operation as string}:${e.manager as string}`)).toEqual(['Apply:alpha', 'Update:zeta', 'Update:beta']);
  });

  it('merges the oldest Update entries into ancient-changes beyond ten', () => {
    const at = (i: number): string => `2026-01-01T00:00:${String(i).padStart(2, '0')}Z`;
    let obj = recordUpdate(undefined, cm({ k0: 'v' }), by('m0', { now: at(0) }));
    const data: Record<string, string> = { k0: 'v' };
    for (let i = 1; i <= 10; i++) {
      data[`k${i}`] = 'v';
      obj = recordUpdate(obj, cm({ ...data }), by(`m${i}`, { now: at(i) }));
    }
    const list = entries(obj) as JsonObject[];
    expect(list.map((e) => e.manager)).toEqual(['ancient-changes', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9', 'm10']);
    expect(list[0]).toEqual(entry('ancient-changes', at(1), { 'f:data': { '.': {}, 'f:k0': {}, 'f:k1': {} } }));
  });

  it('defaults an empty manager to unknown', () => {
    expect((entries(recordUpdate(undefined, cm({ a: '1' }), by(''))) as JsonObject[])[0]?.manager).toBe('unknown');
  });
});

describe('managedFields sent with a write', () => {
  const created = recordUpdate(undefined, cm({ a: '1' }), by('one', { now: T1 }));
  const sending = (managedFields: unknown): JsonObject => cm({ a: '1', b: '2' }, { managedFields });

  it('a usable list replaces the stored one', () => {
    const mine = [entry('mine', T1, { 'f:data': { 'f:a': {} } })];
    expect(entries(recordUpdate(created, sending(mine), by('two')))).toEqual([entry('mine', T1, { 'f:data': { 'f:a': {} } }), entry('two', T2, { 'f:data': { 'f:b': {} } })]);
  });

  it('a status write cannot set them', () => {
    const out = recordUpdate(created, sending([]), by('two', { subresource: 'status' }));
    expect((entries(out) as JsonObject[]).map((e) => e.manager)).toEqual(['one', 'two']);
  });

  it.each([{ sent: [] }, { sent: [{}] }])('$sent clears them, and an object without entries stays without', ({ sent }) => {
    expect(entries(recordUpdate(created, sending(sent), by('two')))).toBeUndefined();
  });

  it.each([
    { why: 'absent', sent: undefined },
    { why: 'an unknown operation', sent: [{ ...entry('x', T1, {}), operation: 'Merge' }] },
    { why: 'a missing fieldsType', sent: [{ manager: 'x', operation: 'Update', apiVersion: 'v1', fieldsV1: {} }] },
    { why: 'a bad FieldsV1 key', sent: [entry('x', T1, { 'q:a': {} })] },
  ])('$why keeps the stored ones', ({ sent }) => {
    expect(entries(recordUpdate(created, sending(sent), by('two')))).toEqual([entry('one', T1, { 'f:data': { '.': {}, 'f:a': {} } }), entry('two', T2, { 'f:data': { 'f:b': {} } })]);
  });

  it.each([
    { sent: 'x', field: 'metadata.managedFields' },
    { sent: [7], field: 'metadata.managedFields[0]' },
    { sent: [{ manager: 3 }], field: 'metadata.managedFields[0].manager' },
    { sent: [{ ...entry('x', 'yesterday', {}) }], field: 'metadata.managedFields[0].time' },
    { sent: [{ ...entry('x', T1, {}), fieldsV1: [] }], field: 'metadata.managedFields[0].fieldsV1' },
  ])('a list of the wrong shape is a 400 naming $field', ({ sent, field }) => {
    let err: unknown;
    try {
      recordUpdate(created, sending(sent), by('two'));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(400);
    expect((err as ApiError).message.startsWith(`${field}: `)).toBe(true);
    expect((err as ApiError).details?.causes?.[0]?.field).toBe(field);
  });
});
