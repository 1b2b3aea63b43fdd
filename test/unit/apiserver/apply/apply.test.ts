import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../src/api/errors.js';
import { type ApplyOptions, applyConfig } from '../../../../src/apiserver/apply/apply.js';
import { FieldSet } from '../../../../src/apiserver/apply/fieldpath.js';
import { recordUpdate } from '../../../../src/apiserver/apply/update.js';
import type { JsonObject } from '../../../../src/apiserver/apply/walk.js';
import { listTypes } from './list-types.js';

const T1 = '2026-01-01T00:00:01Z';
const T2 = '2026-01-01T00:00:02Z';
const T3 = '2026-01-01T00:00:03Z';

const opts = (manager: string, extra: Partial<ApplyOptions> = {}): ApplyOptions => ({ manager, force: false, apiVersion: 'v1', now: T2, listTypes, ...extra });
const cm = (data: Record<string, string>, extra: JsonObject = {}): JsonObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns' }, data, ...extra });
const entries = (o: JsonObject): unknown => (o.metadata as JsonObject).managedFields;
const caught = (f: () => unknown): ApiError => {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
};
/** A ConfigMap created by `alpha` (an Update entry owning every data key). */
const createdBy = (manager: string, data: Record<string, string>): JsonObject => recordUpdate(undefined, cm(data), { manager, apiVersion: 'v1', now: T1, listTypes });

describe('applyConfig on create', () => {
  it('creates the object from the configuration and records an Apply entry without identity fields', () => {
    const out = applyConfig(undefined, cm({ key: 'v' }, { metadata: { name: 'cm', namespace: 'ns', labels: { app: 'x' } } }), opts('alpha'));
    expect(out).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'cm',
        namespace: 'ns',
        labels: { app: 'x' },
        managedFields: [{ manager: 'alpha', operation: 'Apply', apiVersion: 'v1', time: T2, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:key': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } } }],
      },
      data: { key: 'v' },
    });
  });

  it.each([
    { name: 'another version', config: { ...cm({}), apiVersion: 'v2' }, message: 'Incorrect version specified in apply patch. Specified patch version: v2, expected: v1' },
    { name: 'no version', config: { kind: 'ConfigMap', metadata: { name: 'cm' } }, message: 'Incorrect version specified in apply patch. Specified patch version: , expected: v1' },
    { name: 'managedFields', config: cm({}, { metadata: { name: 'cm', managedFields: [] } }), message: 'metadata.managedFields must be nil' },
    { name: 'an element without its key', config: { ...cm({}), spec: { containers: [{ image: 'i' }] } }, message: 'failed to create typed patch object: .spec.containers: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)' },
  ])('refuses a configuration with $name (400)', ({ config, message }) => {
    const err = caught(() => applyConfig(undefined, config, opts('alpha')));
    expect([err.code, err.reason, err.message]).toEqual([400, 'BadRequest', message]);
  });
});

describe('applyConfig on an existing object', () => {
  const pod = (containers: JsonObject[]): JsonObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers } });

  it('merges associative lists by key and keeps elements it does not mention', () => {
    const live = recordUpdate(undefined, pod([{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }]), { manager: 'creator', apiVersion: 'v1', now: T1, listTypes });
    const out = applyConfig(live, pod([{ name: 'c', image: 'c:1' }]), opts('alpha'));
    expect((out.spec as JsonObject).containers).toEqual([{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }, { name: 'c', image: 'c:1' }]);
    expect(entries(out)).toEqual([
      { manager: 'alpha', operation: 'Apply', apiVersion: 'v1', time: T2, fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } },
      {
        manager: 'creator',
        operation: 'Update',
        apiVersion: 'v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:containers': { '.': {}, 'k:{"name":"a"}': { '.': {}, 'f:image': {}, 'f:name': {} }, 'k:{"name":"b"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } },
      },
    ]);
  });

  it('removes fields the manager applied before and no longer applies, unless another manager owns them', () => {
    const first = applyConfig(undefined, cm({ a: '1', b: '2', c: '3' }), opts('alpha', { now: T1 }));
    const shared = applyConfig(first, cm({ c: '3' }), opts('beta', { now: T1 }));
    const out = applyConfig(shared, cm({ a: '1' }), opts('alpha'));
    expect(out.data).toEqual({ a: '1', c: '3' });
    // Entries of one operation are ordered by time.
    expect(entries(out)).toEqual([
      { manager: 'beta', operation: 'Apply', apiVersion: 'v1', time: T1, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:c': {} } } },
      { manager: 'alpha', operation: 'Apply', apiVersion: 'v1', time: T2, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } },
    ]);
  });

  it('removes a list element the manager stopped applying, and a map it emptied', () => {
    const first = applyConfig(undefined, { ...pod([{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }]), metadata: { name: 'p', labels: { x: 'y' } } }, opts('alpha', { now: T1 }));
    const out = applyConfig(first, pod([{ name: 'a', image: 'a:1' }]), opts('alpha'));
    expect(out.spec).toEqual({ containers: [{ name: 'a', image: 'a:1' }] });
    expect((out.metadata as JsonObject).labels).toBeUndefined();
  });

  it('keeps an element another manager owns a field of, with its key', () => {
    const first = applyConfig(undefined, pod([{ name: 'a', image: 'a:1' }]), opts('alpha', { now: T1 }));
    const changed = recordUpdate(first, pod([{ name: 'a', image: 'a:2' }]), { manager: 'other', apiVersion: 'v1', now: T1, listTypes });
    const out = applyConfig(changed, pod([]), opts('alpha'));
    expect(out.spec).toEqual({ containers: [{ name: 'a', image: 'a:2' }] });
  });

  it('shares fields set to the value another manager set', () => {
    const out = applyConfig(createdBy('alpha', { key: 'v' }), cm({ key: 'v' }), opts('beta'));
    expect(entries(out)).toEqual([
      { manager: 'beta', operation: 'Apply', apiVersion: 'v1', time: T2, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:key': {} } } },
      { manager: 'alpha', operation: 'Update', apiVersion: 'v1', time: T1, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:key': {} } } },
    ]);
  });

  it('changes nothing, not even the time, when the same configuration is applied again', () => {
    const first = applyConfig(undefined, cm({ key: 'v' }), opts('alpha', { now: T1 }));
    expect(applyConfig(first, cm({ key: 'v' }), opts('alpha', { now: T3 }))).toEqual(first);
  });

  it('moves the time when the configuration changes something', () => {
    const first = applyConfig(undefined, cm({ key: 'v' }), opts('alpha', { now: T1 }));
    const out = applyConfig(first, cm({ key: 'w' }), opts('alpha', { now: T3 }));
    expect(entries(out)).toEqual([{ manager: 'alpha', operation: 'Apply', apiVersion: 'v1', time: T3, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:key': {} } } }]);
  });
});

describe('apply conflicts', () => {
  it('refuses to change a field another manager owns: 409 with upstream message and cause', () => {
    const err = caught(() => applyConfig(createdBy('alpha', { key: 'v' }), cm({ key: 'w' }), opts('beta')));
    expect(err.status()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "alpha" using v1: .data.key',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alpha" using v1', field: '.data.key' }] },
      code: 409,
    });
  });

  it('lists several conflicts by manager, appliers without a version', () => {
    const live = applyConfig(createdBy('alpha', { a: '1', b: '2' }), cm({ c: '3' }), opts('gamma', { now: T1 }));
    const err = caught(() => applyConfig(live, cm({ a: 'x', b: 'y', c: 'z' }), opts('beta')));
    expect(err.message).toBe('Apply failed with 3 conflicts: conflicts with "alpha" using v1:\n- .data.a\n- .data.b\nconflicts with "gamma":\n- .data.c');
    expect(err.details?.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "alpha" using v1', field: '.data.a' },
      { reason: 'FieldManagerConflict', message: 'conflict with "alpha" using v1', field: '.data.b' },
      { reason: 'FieldManagerConflict', message: 'conflict with "gamma"', field: '.data.c' },
    ]);
  });

  it('names list elements and subresource managers as upstream', () => {
    const live = recordUpdate(
      undefined,
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } },
      { manager: 'agent', apiVersion: 'v1', now: T1, subresource: 'status', listTypes },
    );
    const err = caught(() => applyConfig(live, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, status: { conditions: [{ type: 'Ready', status: 'False' }] } }, opts('ctl', { subresource: 'status' })));
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "agent" with subresource "status" using v1: .status.conditions[type="Ready"].status');
  });

  it('with force takes the fields over and drops entries left empty', () => {
    const live = createdBy('alpha', { key: 'v', other: 'o' });
    const out = applyConfig(live, cm({ key: 'w' }), opts('beta', { force: true }));
    expect(out.data).toEqual({ key: 'w', other: 'o' });
    expect(entries(out)).toEqual([
      { manager: 'beta', operation: 'Apply', apiVersion: 'v1', time: T2, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:key': {} } } },
      { manager: 'alpha', operation: 'Update', apiVersion: 'v1', time: T1, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:other': {} } } },
    ]);
    // The creator keeps the map itself (its `.`); an applier that loses every field goes.
    const applied = applyConfig(undefined, cm({ key: 'v' }), opts('gamma', { now: T1 }));
    const all = applyConfig(applied, cm({ key: 'w' }), opts('beta', { force: true }));
    expect((entries(all) as JsonObject[]).map((e) => e.manager)).toEqual(['beta']);
  });

  it('conflicts when re-applying a field another writer changed since, and force takes it back', () => {
    const applied = applyConfig(undefined, cm({ replicas: '1' }), opts('kubectl', { now: T1 }));
    const scaled = recordUpdate(applied, cm({ replicas: '5' }), { manager: 'scaler', apiVersion: 'v1', now: T2, listTypes });
    expect(entries(scaled)).toEqual([{ manager: 'scaler', operation: 'Update', apiVersion: 'v1', time: T2, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:replicas': {} } } }]);
    expect(caught(() => applyConfig(scaled, cm({ replicas: '1' }), opts('kubectl', { now: T3 }))).message).toBe('Apply failed with 1 conflict: conflict with "scaler" using v1: .data.replicas');
    const forced = applyConfig(scaled, cm({ replicas: '1' }), opts('kubectl', { now: T3, force: true }));
    expect(forced.data).toEqual({ replicas: '1' });
    expect((entries(forced) as JsonObject[]).map((e) => e.manager)).toEqual(['kubectl']);
  });

  it('does not conflict with the manager itself', () => {
    const first = applyConfig(undefined, cm({ key: 'v' }), opts('alpha', { now: T1 }));
    expect(applyConfig(first, cm({ key: 'w' }), opts('alpha')).data).toEqual({ key: 'w' });
  });
});

describe('apply on the status subresource and reset fields', () => {
  it('records the subresource and leaves reset fields unowned', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: 'n' }, status: { phase: 'Running' } };
    const out = applyConfig(undefined, pod, opts('agent', { subresource: 'status', resetFields: FieldSet.of([['f:spec']]) }));
    expect(entries(out)).toEqual([{ manager: 'agent', operation: 'Apply', apiVersion: 'v1', time: T2, fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'f:phase': {} } }, subresource: 'status' }]);
  });
});
