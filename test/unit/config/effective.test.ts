import { describe, expect, it } from 'vitest';
import { apiServerRateLimit, effectiveMaxPods, eventRateLimit, jsonInfoBufferBytes, maxParallelImagePulls, registryRateLimit } from '../../../src/config/effective.js';

describe('effectiveMaxPods', () => {
  it.each([
    [{ maxPods: 110, podsPerCore: 0 }, 2, 110],
    [{ maxPods: 110, podsPerCore: 10 }, 2, 20],
    [{ maxPods: 110, podsPerCore: 100 }, 2, 110],
    [{ maxPods: 15, podsPerCore: 10 }, 2, 15],
  ])('%j on %i cores → %i', (cfg, cores, want) => {
    expect(effectiveMaxPods(cfg, cores)).toBe(want);
  });
});

describe('rate limits: 0 means the default', () => {
  it.each([
    [{ platformAPIQPS: 0, platformAPIBurst: 0 }, { qps: 50, burst: 100 }],
    [{ platformAPIQPS: 5, platformAPIBurst: 7 }, { qps: 5, burst: 7 }],
  ])('api server %j', (cfg, want) => expect(apiServerRateLimit(cfg)).toEqual(want));
  it.each([
    [{ eventRecordQPS: 0, eventBurst: 0 }, { qps: 50, burst: 100 }],
    [{ eventRecordQPS: 1, eventBurst: 2 }, { qps: 1, burst: 2 }],
  ])('events %j', (cfg, want) => expect(eventRateLimit(cfg)).toEqual(want));
  it.each([
    [{ registryPullQPS: 0, registryBurst: 10 }, undefined],
    [{ registryPullQPS: 5, registryBurst: 10 }, { qps: 5, burst: 10 }],
  ])('registry %j (0 is unlimited)', (cfg, want) => expect(registryRateLimit(cfg)).toEqual(want));
});

describe('maxParallelImagePulls', () => {
  it.each([
    [{ serializeImagePulls: true, maxParallelImagePulls: 0 }, 1],
    [{ serializeImagePulls: true, maxParallelImagePulls: 1 }, 1],
    [{ serializeImagePulls: false, maxParallelImagePulls: 0 }, undefined],
    [{ serializeImagePulls: false, maxParallelImagePulls: 5 }, 5],
  ])('%j → %s', (cfg, want) => {
    expect(maxParallelImagePulls(cfg)).toBe(want);
  });
});

describe('jsonInfoBufferBytes: the text the operator wrote, in bytes', () => {
  it.each([
    ['0', 0],
    ['512', 512],
    ['1K', 1000],
    ['2Ki', 2048],
    ['0Ki', 0],
  ])('%s → %i', (text, want) => {
    expect(jsonInfoBufferBytes({ logging: { options: { json: { infoBufferSize: text, splitStream: true } } } } as never)).toBe(want);
  });
});
