// When a pod is synced again without a change to prompt it (retryDelay): a
// failed sync after the error back-off, a crash loop at the end of its back-off.
import { describe, expect, it } from 'vitest';
import { retryDelay } from '../../../src/pods/sync-step.js';

const waiting = (...reasons: string[]) => new Map(reasons.map((reason, i) => [`c${i}`, { reason }]));

describe('retryDelay', () => {
  it.each([
    ['nothing waiting, no error', {}, undefined],
    ['a sync error', { error: new Error('runtime down') }, 10_000],
    ['CreateContainerError', { waiting: waiting('CreateContainerError') }, 10_000],
    ['RunContainerError', { waiting: waiting('RunContainerError') }, 10_000],
    ['ErrImagePull', { waiting: waiting('ErrImagePull') }, 10_000],
    ['ImagePullBackOff', { waiting: waiting('ImagePullBackOff') }, 10_000],
    ['ErrImageNeverPull (the image may appear)', { waiting: waiting('ErrImageNeverPull') }, 10_000],
    ['CreateContainerConfigError', { waiting: waiting('CreateContainerConfigError') }, 10_000],
    ['CrashLoopBackOff alone: at the end of its back-off', { waiting: waiting('CrashLoopBackOff'), retryAfterMs: 40_000 }, 40_050],
    ['CrashLoopBackOff and a failure: whichever comes first', { waiting: waiting('CrashLoopBackOff', 'CreateContainerError'), retryAfterMs: 40_000 }, 10_000],
    ['a crash back-off ending before the error back-off', { waiting: waiting('CrashLoopBackOff', 'ErrImagePull'), retryAfterMs: 2_000 }, 2_050],
  ])('%s', (_, r: { error?: Error; waiting?: Map<string, { reason: string }>; retryAfterMs?: number }, want) => {
    expect(retryDelay({ waiting: new Map(), ...r }, 10_000)).toBe(want);
  });
});
