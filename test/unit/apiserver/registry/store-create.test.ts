import { afterEach, describe, expect, it } from 'vitest';
import { configMap, fixture, pod, rejection, type Fixture } from './fixture.js';

let f: Fixture;
afterEach(async () => f.close());

describe('create', () => {
  it('sets uid, creationTimestamp, resourceVersion, namespace from the path, apiVersion and kind', async () => {
    f = await fixture();
    const cm = await f.store('configmaps').create('ns1', { metadata: { name: 'a' }, data: { k: 'v' } });
    expect(cm.apiVersion).toBe('v1');
    expect(cm.kind).toBe('ConfigMap');
    expect(cm.metadata.namespace).toBe('ns1');
    expect(cm.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(cm.metadata.creationTimestamp).toBe('2026-01-01T00:00:00Z');
    expect(cm.metadata.resourceVersion).toBe(String(await f.storage.currentRevision()));
    const got = await f.store('configmaps').get('ns1', 'a');
    expect(got).toEqual(cm);
  });

  it('generates a name from generateName: the prefix and 5 characters of upstream alphabet', async () => {
    f = await fixture();
    const cm = await f.store('configmaps').create('ns1', { metadata: { generateName: 'gen-' } });
    expect(cm.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const long = await f.store('configmaps').create('ns1', { metadata: { generateName: 'x'.repeat(70) } });
    expect(long.metadata.name).toHaveLength(63);
  });

  it('400 when the body namespace differs from the path; cluster-scoped objects drop it', async () => {
    f = await fixture();
    const err = await rejection(f.store('configmaps').create('ns1', { metadata: { name: 'a', namespace: 'other' } }));
    expect(err.code).toBe(400);
    expect(err.message).toBe('the namespace of the provided object does not match the namespace sent on the request');
    const node = await f.store('nodes').create('', { metadata: { name: 'n1', namespace: 'ns1' } });
    expect(node.metadata.namespace).toBeUndefined();
  });

  it('422 naming the field when neither name nor generateName is given, and for bad names', async () => {
    f = await fixture();
    const err = await rejection(f.store('configmaps').create('ns1', { metadata: {} }));
    expect(err.code).toBe(422);
    expect(err.message).toBe('ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required');
    const bad = await rejection(f.store('configmaps').create('ns1', { metadata: { name: 'Bad_Name' } }));
    expect(bad.message).toContain('metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of');
    const badNs = await rejection(f.store('namespaces').create('', { metadata: { name: 'a.b' } }));
    expect(badNs.message).toContain(`metadata.name: Invalid value: "a.b": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`);
  });

  it('409 AlreadyExists with upstream message', async () => {
    f = await fixture();
    await f.store('configmaps').create('ns1', configMap('a'));
    const err = await rejection(f.store('configmaps').create('ns1', configMap('a')));
    expect(err.code).toBe(409);
    expect(err.reason).toBe('AlreadyExists');
    expect(err.message).toBe('configmaps "a" already exists');
  });

  it('dry-run returns the would-be object and stores nothing (the revision does not move)', async () => {
    f = await fixture();
    const before = await f.storage.currentRevision();
    const cm = await f.store('configmaps').create('ns1', { metadata: { generateName: 'd-' }, data: { k: 'v' } }, { dryRun: true });
    expect(cm.metadata.name).toMatch(/^d-/);
    expect(cm.metadata.uid).toBeDefined();
    expect(cm.metadata.resourceVersion).toBeUndefined();
    expect(await f.storage.currentRevision()).toBe(before);
    expect((await rejection(f.store('configmaps').get('ns1', cm.metadata.name ?? ''))).code).toBe(404);
    await f.store('configmaps').create('ns1', configMap('a'));
    expect((await rejection(f.store('configmaps').create('ns1', configMap('a'), { dryRun: true }))).reason).toBe('AlreadyExists');
  });

  it('404 in a missing namespace, 403 in a terminating one', async () => {
    f = await fixture();
    const missing = await rejection(f.store('configmaps').create('nope', configMap('a')));
    expect(missing.code).toBe(404);
    expect(missing.message).toBe('namespaces "nope" not found');
    await f.store('pods').create('ns1', pod('p', { nodeName: 'n1' }));
    await f.store('namespaces').delete('', 'ns1');
    const terminating = await rejection(f.store('configmaps').create('ns1', configMap('b')));
    expect(terminating.code).toBe(403);
    expect(terminating.message).toBe('configmaps "b" is forbidden: unable to create new content in namespace ns1 because it is being terminated');
  });

  it('pods: defaults, Pending status with a QoS class, agent validation as FieldErrors', async () => {
    f = await fixture();
    const p = await f.store('pods').create('ns1', { ...pod('p'), status: { phase: 'Running' } });
    expect(p.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
    expect(p.spec).toMatchObject({ restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst' });
    const err = await rejection(f.store('pods').create('ns1', { metadata: { name: 'q' }, spec: { containers: [] } }));
    expect(err.code).toBe(422);
    expect((err.details as { causes: Array<{ field: string }> }).causes.map((c) => c.field)).toContain('spec.containers');
  });

  it('secrets: data must be base64, values left out of the message; type defaults to Opaque', async () => {
    f = await fixture();
    const s = await f.store('secrets').create('ns1', { metadata: { name: 's' }, stringData: { a: 'x' } });
    expect(s).toMatchObject({ type: 'Opaque', data: { a: 'eA==' } });
    expect(s.stringData).toBeUndefined();
    const err = await rejection(f.store('secrets').create('ns1', { metadata: { name: 't' }, data: { a: 'not base64!' } }));
    expect(err.code).toBe(422);
    expect(err.message).toBe('Secret "t" is invalid: data[a]: Invalid value: "<value omitted>": must be a base64-encoded string');
  });
});
