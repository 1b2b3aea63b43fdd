// Each built-in resource: a valid object is stored, an invalid one is refused
// naming the field, and its field selectors work.
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiObject } from '../../../../src/apiserver/registry/types.js';
import { fixture, rejection, type Fixture } from './fixture.js';

let f: Fixture;
afterEach(async () => f.close());

interface Row {
  resource: string;
  group?: string;
  namespace: string;
  valid: ApiObject;
  invalid: ApiObject;
  field: string;
}

const ROWS: Row[] = [
  { resource: 'nodes', namespace: '', valid: { metadata: { name: 'n1' }, spec: { unschedulable: true } }, invalid: { metadata: { name: 'n2' }, spec: { unschedulable: 'yes' } }, field: 'spec.unschedulable' },
  {
    resource: 'events',
    namespace: 'ns1',
    valid: { metadata: { name: 'p.1' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'ns1' }, reason: 'Started', type: 'Normal' },
    invalid: { metadata: { name: 'p.2' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'other' }, type: 'Normal' },
    field: 'involvedObject.namespace',
  },
  {
    resource: 'leases',
    group: 'coordination.platform.io',
    namespace: 'ns1',
    valid: { metadata: { name: 'n1' }, spec: { holderIdentity: 'n1', leaseDurationSeconds: 40, renewTime: '2026-01-01T00:00:00.000000Z' } },
    invalid: { metadata: { name: 'n2' }, spec: { leaseDurationSeconds: 0 } },
    field: 'spec.leaseDurationSeconds',
  },
  { resource: 'configmaps', namespace: 'ns1', valid: { metadata: { name: 'c' }, data: { 'a.b': 'x' }, binaryData: { bin: 'AAE=' } }, invalid: { metadata: { name: 'd' }, data: { 'a b': 'x' } }, field: 'data' },
  {
    resource: 'secrets',
    namespace: 'ns1',
    valid: { metadata: { name: 's' }, type: 'platform.io/tls', data: { 'tls.crt': 'eA==', 'tls.key': 'eA==' } },
    invalid: { metadata: { name: 't' }, type: 'platform.io/tls', data: { 'tls.crt': 'eA==' } },
    field: 'data[tls.key]',
  },
  { resource: 'serviceaccounts', namespace: 'ns1', valid: { metadata: { name: 'default' }, automountServiceAccountToken: false, secrets: [{ name: 's' }], imagePullSecrets: [{ name: 'r' }] }, invalid: { metadata: { name: 'x' }, secrets: 'all' }, field: 'secrets' },
];

describe('built-in strategies', () => {
  it.each(ROWS)('$resource: valid stored, invalid names $field', async (row) => {
    f = await fixture();
    const store = f.store(row.resource, row.group);
    const created = await store.create(row.namespace, row.valid);
    expect(created.metadata.uid).toBeDefined();
    const err = await rejection(store.create(row.namespace, row.invalid));
    expect(err.code).toBe(422);
    expect((err.details as { causes: Array<{ field: string }> }).causes.map((c) => c.field)).toContain(row.field);
  });

  it('events are selectable by involved object and reason', async () => {
    f = await fixture();
    const events = f.store('events');
    await events.create('ns1', ROWS[1]!.valid);
    await events.create('ns1', { metadata: { name: 'q.1' }, involvedObject: { kind: 'Pod', name: 'q', namespace: 'ns1' }, reason: 'Killing', type: 'Normal' });
    const byObject = await events.list('ns1', { readAt: { kind: 'MostRecent' }, selection: { fields: (fs) => fs['involvedObject.name'] === 'q', fieldNames: ['involvedObject.name'] } });
    expect(byObject.items.map((i) => i.metadata.name)).toEqual(['q.1']);
    const byReason = await events.list('ns1', { readAt: { kind: 'MostRecent' }, selection: { fields: (fs) => fs.reason === 'Started', fieldNames: ['reason'] } });
    expect(byReason.items.map((i) => i.metadata.name)).toEqual(['p.1']);
  });

  it('namespaces are selectable by status.phase; secrets by type', async () => {
    f = await fixture({}, ['a', 'b']);
    const active = await f.store('namespaces').list('', { readAt: { kind: 'MostRecent' }, selection: { fields: (fs) => fs['status.phase'] === 'Active', fieldNames: ['status.phase'] } });
    expect(active.items.map((i) => i.metadata.name)).toEqual(['a', 'b']);
    await f.store('secrets').create('a', ROWS[4]!.valid);
    await f.store('secrets').create('a', { metadata: { name: 'o' } });
    const tls = await f.store('secrets').list('a', { readAt: { kind: 'MostRecent' }, selection: { fields: (fs) => fs.type === 'platform.io/tls', fieldNames: ['type'] } });
    expect(tls.items.map((i) => i.metadata.name)).toEqual(['s']);
  });
});
