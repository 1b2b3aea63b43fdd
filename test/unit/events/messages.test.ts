import { describe, expect, it } from 'vitest';
import { crashBackOffMessage, goDuration, probeEvent, pulledMessage } from '../../../src/events/index.js';

describe('goDuration (Go\'s Duration.String of a millisecond-truncated duration)', () => {
  it.each([
    [0, '0s'],
    [0.7, '0s'],
    [250, '250ms'],
    [1000, '1s'],
    [1200, '1.2s'],
    [1234, '1.234s'],
    [59_999, '59.999s'],
    [62_005, '1m2.005s'],
    [3_600_500, '1h0m0.5s'],
  ])('%f ms → %s', (ms, want) => expect(goDuration(ms)).toBe(want));
});

describe('messages', () => {
  it.each([
    [probeEvent('liveness', 'failed', 'HTTP probe failed with statuscode: 500'), { type: 'Warning', reason: 'Unhealthy', message: 'Liveness probe failed: HTTP probe failed with statuscode: 500' }],
    [probeEvent('readiness', 'warning', 'redirect'), { type: 'Warning', reason: 'ProbeWarning', message: 'Readiness probe warning: redirect' }],
    [probeEvent('startup', 'errored', 'no port'), { type: 'Warning', reason: 'Unhealthy', message: 'Startup probe errored: no port' }],
  ])('probe %#', (got, want) => expect(got).toEqual(want));
  it('pulled and crash back-off', () => {
    expect(pulledMessage('busybox', 1200, 1500)).toBe('Successfully pulled image "busybox" in 1.2s (1.5s including waiting)');
    expect(crashBackOffMessage('c', { namespace: 'ns', name: 'p', uid: 'u' })).toBe('Back-off restarting failed container c in pod p_ns(u)');
  });
});
