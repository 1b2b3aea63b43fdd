// The image manager against the in-memory image service: pull policies,
// bounded parallelism, the registry rate limit and credentials tried in turn.
import { describe, expect, it } from 'vitest';
import type { AuthConfig, PodSandboxConfig } from '../../../src/cri/types.js';
import { CriError } from '../../../src/cri/errors.js';
import { FakeRuntime, type FakePullBehaviour } from '../../../src/cri/fake-runtime.js';
import { ImageManager, PRESENT_TTL_MS } from '../../../src/images/manager.js';
import { KeyedBackoff } from '../../../src/util/backoff.js';
import { testLogger } from '../../helpers/test-logger.js';

const SANDBOX = {} as PodSandboxConfig;
const signal = new AbortController().signal;

function harness(opts: { registry?: Record<string, FakePullBehaviour>; maxParallel?: number; rateLimit?: { qps: number; burst: number }; credentials?: (image: string) => Promise<readonly AuthConfig[]>; now?: () => number } = {}) {
  const runtime = new FakeRuntime({ images: ['local/present:1'], registry: opts.registry ?? {} });
  let inFlight = 0;
  let maxInFlight = 0;
  const pullImage = runtime.pullImage.bind(runtime);
  runtime.pullImage = async (...args) => {
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    try {
      return await pullImage(...args);
    } finally {
      inFlight--;
    }
  };
  const images = new ImageManager({
    images: runtime,
    maxParallel: opts.maxParallel,
    ...(opts.rateLimit ? { rateLimit: opts.rateLimit } : {}),
    backoff: new KeyedBackoff({ initialMs: 10_000, maxMs: 300_000, ...(opts.now ? { now: opts.now } : {}) }),
    credentials: opts.credentials ?? (async () => []),
    log: testLogger(),
    ...(opts.now ? { now: opts.now } : {}),
  });
  return { runtime, images, maxInFlight: () => maxInFlight, pulls: () => runtime.callsOf('pullImage'), statusReads: () => runtime.callsOf('imageStatus').length };
}

const slow = (n: number): Record<string, FakePullBehaviour> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`reg.io/app${i}:1`, { delayMs: 30 }]));

describe('ImageManager', () => {
  it('IfNotPresent uses a present image, Never refuses a missing one, Always pulls', async () => {
    const h = harness({ registry: { 'local/present:1': {} } });
    expect(await h.images.ensure({ image: 'local/present:1', policy: 'IfNotPresent', backoffKey: 'k', sandbox: SANDBOX }, signal)).toMatchObject({ ok: true, pulled: false });
    expect(await h.images.ensure({ image: 'reg.io/missing:1', policy: 'Never', backoffKey: 'k', sandbox: SANDBOX }, signal)).toEqual({ ok: false, reason: 'ErrImageNeverPull', message: 'Container image "reg.io/missing:1" is not present with pull policy of Never' });
    expect(await h.images.ensure({ image: 'local/present:1', policy: 'Always', backoffKey: 'k', sandbox: SANDBOX }, signal)).toMatchObject({ ok: true, pulled: true });
    expect(h.pulls()).toHaveLength(1);
  });

  it('releases the held slot just before a pull, and only then', async () => {
    const h = harness({ registry: { 'reg.io/app:1': {}, 'reg.io/broken:1': { error: new CriError('UNKNOWN', 'not found') } } });
    const seen: string[] = [];
    const ensure = (image: string) => h.images.ensure({ image, policy: 'IfNotPresent', backoffKey: image, sandbox: SANDBOX }, signal, { release: () => seen.push(`${image} pulls=${h.pulls().length}`) });
    expect(await ensure('local/present:1')).toMatchObject({ ok: true, pulled: false });
    expect(await ensure('reg.io/app:1')).toMatchObject({ ok: true, pulled: true });
    expect(await ensure('reg.io/broken:1')).toMatchObject({ reason: 'ErrImagePull' });
    expect(await ensure('reg.io/broken:1')).toMatchObject({ reason: 'ImagePullBackOff' });
    expect(seen).toEqual(['reg.io/app:1 pulls=0', 'reg.io/broken:1 pulls=1']);
  });

  it.each([
    [1, 1],
    [2, 2],
    [undefined, 4],
  ])('maxParallel %s: at most %i pulls at once', async (maxParallel, want) => {
    const h = harness({ registry: slow(4), maxParallel });
    const results = await Promise.all([0, 1, 2, 3].map((i) => h.images.ensure({ image: `reg.io/app${i}:1`, policy: 'IfNotPresent', backoffKey: `k${i}`, sandbox: SANDBOX }, signal)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(h.maxInFlight()).toBe(want);
  });

  it('a pull over --registry-qps/--registry-burst fails at once with "pull QPS exceeded" and backs off', async () => {
    const h = harness({ registry: slow(3), rateLimit: { qps: 0.001, burst: 2 } });
    const results = await Promise.all([0, 1, 2].map((i) => h.images.ensure({ image: `reg.io/app${i}:1`, policy: 'IfNotPresent', backoffKey: `k${i}`, sandbox: SANDBOX }, signal)));
    expect(results.filter((r) => r.ok)).toHaveLength(2);
    expect(results.find((r) => !r.ok)).toEqual({ ok: false, reason: 'ErrImagePull', message: expect.stringContaining('pull QPS exceeded') as string });
    expect(h.pulls()).toHaveLength(2);
    const again = await h.images.ensure({ image: 'reg.io/app2:1', policy: 'IfNotPresent', backoffKey: 'k2', sandbox: SANDBOX }, signal);
    expect(again).toMatchObject({ ok: false, reason: 'ImagePullBackOff' });
  });

  it('tries each credential in turn and stops at the first that pulls', async () => {
    const registry = { 'reg.io/private:1': { auth: { username: 'right', password: 'p' } } };
    const creds = [{ username: 'wrong', password: 'p' }, { username: 'right', password: 'p' }, { username: 'never', password: 'p' }];
    const h = harness({ registry, credentials: async () => creds });
    expect(await h.images.ensure({ image: 'reg.io/private:1', policy: 'Always', backoffKey: 'k', sandbox: SANDBOX }, signal)).toMatchObject({ ok: true, pulled: true });
    expect(h.pulls().map(([, auth]) => auth?.username)).toEqual(['wrong', 'right']);
  });

  it('reports the last failure when no credential pulls, and pulls anonymously when there are none', async () => {
    const registry = { 'reg.io/private:1': { auth: { username: 'right', password: 'p' } }, 'reg.io/public:1': {} };
    const h = harness({ registry, credentials: async (image) => (image.includes('private') ? [{ username: 'a', password: 'x' }, { username: 'b', password: 'x' }] : []) });
    const failed = await h.images.ensure({ image: 'reg.io/private:1', policy: 'Always', backoffKey: 'k', sandbox: SANDBOX }, signal);
    expect(failed).toMatchObject({ ok: false, reason: 'ErrImagePull', message: expect.stringContaining('401 Unauthorized') as string });
    expect(await h.images.ensure({ image: 'reg.io/public:1', policy: 'Always', backoffKey: 'k2', sandbox: SANDBOX }, signal)).toMatchObject({ ok: true });
    expect(h.pulls().map(([, auth]) => auth?.username)).toEqual(['a', 'b', undefined]);
  });

  it('backs off a failing pull, then pulls again once the back-off passed', async () => {
    let now = 0;
    const h = harness({ registry: { 'reg.io/flaky:1': { error: new CriError('UNKNOWN', 'connection refused') } }, now: () => now });
    expect(await h.images.ensure({ image: 'reg.io/flaky:1', policy: 'IfNotPresent', backoffKey: 'k', sandbox: SANDBOX }, signal)).toMatchObject({ reason: 'ErrImagePull' });
    now = 9_000;
    expect(await h.images.ensure({ image: 'reg.io/flaky:1', policy: 'IfNotPresent', backoffKey: 'k', sandbox: SANDBOX }, signal)).toMatchObject({ reason: 'ImagePullBackOff', message: 'Back-off pulling image "reg.io/flaky:1"' });
    h.runtime.images.setRegistry('reg.io/flaky:1', {});
    now = 10_001;
    expect(await h.images.ensure({ image: 'reg.io/flaky:1', policy: 'IfNotPresent', backoffKey: 'k', sandbox: SANDBOX }, signal)).toMatchObject({ ok: true, pulled: true });
  });

  describe('presence answers', () => {
    it('stand for PRESENT_TTL_MS for the next containers of the image, then the runtime is asked again', async () => {
      let now = 0;
      const h = harness({ now: () => now });
      const ensure = () => h.images.ensure({ image: 'local/present:1', policy: 'IfNotPresent', backoffKey: 'k', sandbox: SANDBOX }, signal);
      expect(await ensure()).toMatchObject({ ok: true, pulled: false });
      now = PRESENT_TTL_MS - 1;
      expect(await ensure()).toMatchObject({ ok: true, pulled: false });
      expect(await h.images.ensure({ image: 'local/present:1', policy: 'Never', backoffKey: 'k', sandbox: SANDBOX }, signal)).toMatchObject({ ok: true, pulled: false });
      expect(h.statusReads()).toBe(1);
      now = PRESENT_TTL_MS;
      expect(await ensure()).toMatchObject({ ok: true, pulled: false });
      expect(h.statusReads()).toBe(2);
    });

    it('a pulled image is present for the next containers; Always still pulls each time', async () => {
      const h = harness({ registry: { 'reg.io/app:1': {} }, now: () => 0 });
      expect(await h.images.ensure({ image: 'reg.io/app:1', policy: 'IfNotPresent', backoffKey: 'k', sandbox: SANDBOX }, signal)).toMatchObject({ ok: true, pulled: true });
      expect(await h.images.ensure({ image: 'reg.io/app:1', policy: 'IfNotPresent', backoffKey: 'k', sandbox: SANDBOX }, signal)).toMatchObject({ ok: true, pulled: false });
      expect(await h.images.ensure({ image: 'reg.io/app:1', policy: 'Always', backoffKey: 'k', sandbox: SANDBOX }, signal)).toMatchObject({ ok: true, pulled: true });
      expect(await h.images.ensure({ image: 'reg.io/app:1', policy: 'Always', backoffKey: 'k', sandbox: SANDBOX }, signal)).toMatchObject({ ok: true, pulled: true });
      expect(h.pulls()).toHaveLength(3);
      expect(h.statusReads()).toBe(1);
    });

    it('forget(): an image removed since it was found present is looked up again and pulled', async () => {
      const h = harness({ registry: { 'reg.io/app:latest': {} }, now: () => 0 });
      expect(await h.images.ensure({ image: 'reg.io/app', policy: 'IfNotPresent', backoffKey: 'k', sandbox: SANDBOX }, signal)).toMatchObject({ ok: true, pulled: true });
      await h.runtime.removeImage('reg.io/app:latest');
      // Within the TTL the answer stands: the container's creation would fail, and the caller forgets it.
      expect(await h.images.ensure({ image: 'reg.io/app', policy: 'IfNotPresent', backoffKey: 'k', sandbox: SANDBOX }, signal)).toMatchObject({ ok: true, pulled: false });
      h.images.forget('reg.io/app');
      expect(await h.images.ensure({ image: 'reg.io/app', policy: 'IfNotPresent', backoffKey: 'k', sandbox: SANDBOX }, signal)).toMatchObject({ ok: true, pulled: true });
      expect(h.pulls()).toHaveLength(2);
    });

    it('a missing image is not remembered: Never keeps refusing until it is present', async () => {
      const h = harness({ registry: { 'reg.io/app:1': {} }, now: () => 0 });
      expect(await h.images.ensure({ image: 'reg.io/app:1', policy: 'Never', backoffKey: 'k', sandbox: SANDBOX }, signal)).toMatchObject({ ok: false, reason: 'ErrImageNeverPull' });
      expect(await h.images.ensure({ image: 'reg.io/app:1', policy: 'Never', backoffKey: 'k', sandbox: SANDBOX }, signal)).toMatchObject({ ok: false, reason: 'ErrImageNeverPull' });
      expect(h.statusReads()).toBe(2);
    });
  });
});
