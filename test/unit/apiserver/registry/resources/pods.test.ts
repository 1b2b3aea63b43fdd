// The pod strategy decodes a created pod once (prepareForCreate) and its
// validation reuses that decode: the answers must be those of a fresh decode
// of the stored object, and a later validation of a changed object decodes anew.
import { describe, expect, it } from 'vitest';
import { pods } from '../../../../../src/apiserver/registry/resources/index.js';
import { clone } from '../../../../../src/apiserver/registry/object.js';
import { prepareCreate } from '../../../../../src/apiserver/registry/write-prep.js';
import type { ApiObject } from '../../../../../src/apiserver/registry/types.js';

const container = (extra: Record<string, unknown> = {}) => ({ name: 'c', image: 'registry.local/app:1.0', ...extra });
const body = (spec: Record<string, unknown>, metadata: Record<string, unknown> = { name: 'p' }): ApiObject => ({ apiVersion: 'v1', kind: 'Pod', metadata, spec }) as ApiObject;

const CASES: { name: string; pod: ApiObject; qos: string | undefined; fields: string[] }[] = [
  { name: 'best effort', pod: body({ containers: [container()] }), qos: 'BestEffort', fields: [] },
  { name: 'burstable', pod: body({ containers: [container({ resources: { requests: { cpu: '10m' } } })] }), qos: 'Burstable', fields: [] },
  { name: 'guaranteed from limits alone', pod: body({ containers: [container({ resources: { limits: { cpu: '1', memory: '1Gi' } } })] }), qos: 'Guaranteed', fields: [] },
  { name: 'generated name', pod: body({ containers: [container()] }, { generateName: 'web-' }), qos: 'BestEffort', fields: [] },
  { name: 'no containers', pod: body({ containers: [] }), qos: 'BestEffort', fields: ['spec.containers'] },
  { name: 'does not decode', pod: body({ containers: [container({ image: 7 })] }), qos: undefined, fields: ['spec.containers[0].image'] },
  { name: 'duplicate container names', pod: body({ containers: [container(), container()] }), qos: 'BestEffort', fields: ['spec.containers[1].name'] },
];

describe('pod create: one decode for the QoS class and the validation', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const { obj, errors } = prepareCreate(pods, clone(c.pod), 'ns1', Date.parse('2026-01-01T00:00:00Z'));
      expect((obj.status as { qosClass?: string }).qosClass).toBe(c.qos);
      expect(errors.map((e) => e.field)).toEqual(c.fields);
      // The same answers as a fresh decode of the object as it would be stored.
      expect(pods.validate(clone(obj))).toEqual(errors.filter((e) => !e.field.startsWith('metadata')));
    });
  }

  it('a later validation of the same object, changed, decodes it again', () => {
    const { obj, errors } = prepareCreate(pods, body({ containers: [container()] }), 'ns1', 0);
    expect(errors).toEqual([]);
    (obj.spec as { containers: unknown[] }).containers = [];
    expect(pods.validate(obj).map((e) => e.field)).toEqual(['spec.containers']);
  });

  it('the defaults are in place before the QoS class is read, and applying them again changes nothing', () => {
    const { obj } = prepareCreate(pods, body({ containers: [container()] }), 'ns1', 0);
    const once = clone(obj);
    pods.defaults?.(obj);
    expect(obj).toEqual(once);
    expect(obj.spec).toMatchObject({ restartPolicy: 'Always', schedulerName: 'default-scheduler', enableServiceLinks: true, containers: [{ imagePullPolicy: 'IfNotPresent' }] });
  });
});
