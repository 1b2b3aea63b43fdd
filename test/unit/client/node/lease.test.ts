import { describe, expect, it } from 'vitest';
import {
  ENSURE_LEASE_BACKOFF,
  NODE_LEASE_NAMESPACE,
  desiredLease,
  jitteredMs,
  microTime,
  nextEnsureBackoffMs,
  onLeaseUpdateFailure,
  renewIntervalMs,
} from '../../../../src/client/node/index.js';
import { conflict, internal, notFound } from './fake-resource-client.js';

const id = { nodeName: 'n1', namespace: NODE_LEASE_NAMESPACE, durationSeconds: 40 };
const T = Date.UTC(2026, 10, 24, 13, 0, 5) + 123; // …:05.123Z

describe('lease timing', () => {
  it.each([
    [40, 10_000],
    [10, 2_500],
    [1, 250],
  ])('a %i s lease renews every %i ms', (d, want) => expect(renewIntervalMs(d)).toBe(want));

  it.each([
    [0, 10_000],
    [0.5, 10_200],
    [0.999, 10_399.6],
  ])('jitter %d stretches a 10 s interval to %d ms', (r, want) => expect(jitteredMs(10_000, r)).toBeCloseTo(want, 6));

  it('the ensure back-off doubles before each wait, from 200 ms to at most 7 s', () => {
    const waits: number[] = [];
    let w: number = ENSURE_LEASE_BACKOFF.initialMs;
    for (let i = 0; i < 8; i++) waits.push((w = nextEnsureBackoffMs(w)));
    expect(waits).toEqual([200, 400, 800, 1600, 3200, 6400, 7000, 7000]);
  });

  it.each([
    [T, '2026-11-24T13:00:05.123000Z'],
    [Date.UTC(2026, 0, 1), '2026-01-01T00:00:00.000000Z'],
    [Date.UTC(2026, 0, 1) + 0.7, '2026-01-01T00:00:00.000000Z'],
  ])('microTime(%d) is %s', (ms, want) => expect(microTime(ms)).toBe(want));
});

describe('desiredLease', () => {
  it('a new lease: name and holder are the node, the duration, renewTime now, the node as owner', () => {
    expect(desiredLease(undefined, id, T, 'node-uid')).toEqual({
      apiVersion: 'coordination.platform.io/v1',
      kind: 'Lease',
      metadata: { name: 'n1', namespace: 'platform-node-lease', ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'node-uid' }] },
      spec: { holderIdentity: 'n1', leaseDurationSeconds: 40, renewTime: '2026-11-24T13:00:05.123000Z' },
    });
  });

  it('without the node\'s uid, no owner yet', () => {
    expect(desiredLease(undefined, id, T, undefined)['metadata']).toEqual({ name: 'n1', namespace: 'platform-node-lease' });
  });

  it('a renewal copies the held lease (resourceVersion and all) and sets only renewTime, leaving the base alone', () => {
    const base = {
      apiVersion: 'coordination.platform.io/v1',
      kind: 'Lease',
      metadata: { name: 'n1', namespace: 'platform-node-lease', resourceVersion: '42', ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'old' }] },
      spec: { holderIdentity: 'n1', leaseDurationSeconds: 40, renewTime: '2026-01-01T00:00:00.000000Z' },
    };
    const before = structuredClone(base);
    const got = desiredLease(base, id, T, 'new-uid');
    expect(got).toEqual({ ...before, spec: { ...before.spec, renewTime: '2026-11-24T13:00:05.123000Z' } });
    expect(base).toEqual(before);
  });

  it('a held lease without owner gains it once the uid is known', () => {
    const base = { metadata: { name: 'n1', resourceVersion: '3' }, spec: { holderIdentity: 'n1' } };
    expect(desiredLease(base, id, T, 'u')['metadata']).toEqual({ name: 'n1', resourceVersion: '3', ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'u' }] });
  });
});

describe('onLeaseUpdateFailure', () => {
  it.each([
    ['conflict, first try', conflict(), 0, { action: 'refetch', repeatedFailure: false }],
    ['conflict, later try', conflict(), 3, { action: 'refetch', repeatedFailure: false }],
    ['server error, first try', internal(), 0, { action: 'retry', repeatedFailure: false }],
    ['server error, second try', internal(), 1, { action: 'retry', repeatedFailure: true }],
    ['not found (lease deleted), second try', notFound(), 1, { action: 'retry', repeatedFailure: true }],
    ['a connection error', new Error('ECONNRESET'), 2, { action: 'retry', repeatedFailure: true }],
  ])('%s', (_name, err, attempt, want) => expect(onLeaseUpdateFailure(err, attempt)).toEqual(want));
});
