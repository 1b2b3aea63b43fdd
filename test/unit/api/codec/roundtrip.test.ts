// Every served kind survives JSON -> protobuf envelope -> JSON, and the
// protobuf form is stable (encode(decode(x)) == x).
import { describe, expect, it } from 'vitest';
import { type ApiCodec, SERVED_KINDS, loadApiCodec } from '../../../../src/api/codec/index.js';
import { FIXTURES, LEASE, POD, SECRET } from '../../../fixtures/api/objects.js';

/** What the wire cannot carry (proto2 presence): nulls and empty lists disappear. */
function wireVisible(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(wireVisible);
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(v)) {
    if (val === null || (Array.isArray(val) && val.length === 0)) continue;
    out[k] = wireVisible(val);
  }
  return out;
}

const codec: Promise<ApiCodec> = loadApiCodec();

describe('round trip of every served kind', () => {
  it.each(FIXTURES.map((f) => [f.name, f.obj] as const))('%s', async (_name, obj) => {
    const c = await codec;
    const bytes = c.encode(obj);
    const { typeMeta, object } = c.decode(bytes);
    expect(typeMeta).toEqual({ apiVersion: obj['apiVersion'], kind: obj['kind'] });
    expect(object).toEqual(wireVisible(obj));
    expect(c.encode(object).equals(bytes)).toBe(true);
  });

  it('has a fixture for every served kind except the Lists it builds itself', async () => {
    const c = await codec;
    const covered = new Set(FIXTURES.map((f) => f.name));
    const missing = c.kinds.filter((k) => !covered.has(k.kind) && !k.kind.endsWith('List'));
    expect(missing).toEqual([]);
  });

  it('encodes and decodes an empty object of every served kind and its List', async () => {
    const c = await codec;
    for (const k of SERVED_KINDS) {
      expect(c.decode(c.encode({}, k)).object).toEqual({ kind: k.kind, apiVersion: k.apiVersion });
    }
  });
});

describe('JSON conventions', () => {
  it('keeps empty strings and empty messages, drops nulls and empty lists', async () => {
    const c = await codec;
    const obj = { metadata: { name: '', finalizers: [], labels: { a: '' } }, spec: { containers: [{ name: 'c', securityContext: {} }], volumes: [{ name: 'v', emptyDir: {} }], nodeName: null } };
    const back = c.decodeRaw(c.encodeRaw(obj, { apiVersion: 'v1', kind: 'Pod' }), { apiVersion: 'v1', kind: 'Pod' });
    expect(back).toEqual({ metadata: { name: '', labels: { a: '' } }, spec: { containers: [{ name: 'c', securityContext: {} }], volumes: [{ name: 'v', emptyDir: {} }] } });
  });

  it('writes Time with second precision and MicroTime with microseconds', async () => {
    const c = await codec;
    const tm = { apiVersion: 'coordination.platform.io/v1', kind: 'Lease' };
    const back = c.decodeRaw(c.encodeRaw({ metadata: { creationTimestamp: '2024-03-01T10:20:30.999Z' }, spec: { renewTime: '2024-03-01T12:20:30.1234567+02:00' } }, tm), tm);
    expect(back).toEqual({ metadata: { creationTimestamp: '2024-03-01T10:20:30Z' }, spec: { renewTime: '2024-03-01T10:20:30.123456Z' } });
    expect(c.decodeRaw(c.encodeRaw(LEASE, tm), tm)['spec']).toEqual(LEASE['spec']);
  });

  it('reads a Quantity given as a number as its string form, and IntOrString as number or string', async () => {
    const c = await codec;
    const tm = { apiVersion: 'v1', kind: 'Pod' };
    const obj = { spec: { containers: [{ name: 'c', resources: { limits: { cpu: 2 } }, readinessProbe: { httpGet: { port: 8080 } }, livenessProbe: { httpGet: { port: 'http' } } }] } };
    const back = c.decodeRaw(c.encodeRaw(obj, tm), tm) as { spec: { containers: Record<string, unknown>[] } };
    expect(back.spec.containers[0]).toEqual({ name: 'c', resources: { limits: { cpu: '2' } }, readinessProbe: { httpGet: { port: 8080 } }, livenessProbe: { httpGet: { port: 'http' } } });
  });

  it('carries bytes fields as base64 and int64 as numbers', async () => {
    const c = await codec;
    const back = c.decode(c.encode(SECRET)).object;
    expect(back['data']).toEqual(SECRET['data']);
    const tm = { apiVersion: 'v1', kind: 'Pod' };
    const big = { metadata: { generation: 2 ** 53 - 1, deletionGracePeriodSeconds: -5 } };
    expect(c.decodeRaw(c.encodeRaw(big, tm), tm)).toEqual(big);
  });

  it('names the field of a value of the wrong type', async () => {
    const c = await codec;
    const tm = { apiVersion: 'v1', kind: 'Pod' };
    expect(() => c.encodeRaw({ spec: { containers: [{ name: 'a' }, { name: 5 }] } }, tm)).toThrow(expect.objectContaining({ code: 'ETYPE', field: 'spec.containers[1].name' }));
    expect(() => c.encodeRaw({ metadata: { creationTimestamp: 'yesterday' } }, tm)).toThrow(expect.objectContaining({ code: 'ETYPE', field: 'metadata.creationTimestamp' }));
    expect(() => c.encodeRaw({ metadata: { labels: { a: 1 } } }, tm)).toThrow(expect.objectContaining({ field: 'metadata.labels.a', message: 'metadata.labels.a: expected string, got number' }));
  });

  it('refuses a kind it does not serve', async () => {
    const c = await codec;
    expect(() => c.encode({ kind: 'Deployment', apiVersion: 'apps/v1' })).toThrow(expect.objectContaining({ code: 'EKIND', message: 'no kind "Deployment" is registered for version "apps/v1"' }));
  });
});

describe('lists', () => {
  it('builds a List from stored items without re-encoding them, equal to encoding the whole list', async () => {
    const c = await codec;
    const { kind: _k, apiVersion: _a, ...podBody } = POD;
    const pods = [0, 1, 2].map((i) => ({ ...podBody, metadata: { ...(POD['metadata'] as object), name: `p${i}` } }));
    const stored = pods.map((p) => c.encode(p, { apiVersion: 'v1', kind: 'Pod' }));
    const page = c.encodeListFromStored({ apiVersion: 'v1', kind: 'PodList' }, { resourceVersion: '7', continue: '' }, stored.map((envelope, i) => ({ envelope, resourceVersion: String(4 + i) })));
    const versioned = pods.map((p, i) => ({ ...p, metadata: { ...p.metadata, resourceVersion: String(4 + i) } }));
    const whole = c.encode({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '7', continue: '' }, items: versioned });
    expect(page.equals(whole)).toBe(true);
    const back = c.decode(page).object as { items: Record<string, unknown>[] };
    expect(back.items.map((p) => (p['metadata'] as { name: string }).name)).toEqual(['p0', 'p1', 'p2']);
    expect(back.items[0]).not.toHaveProperty('kind');
  });
});
