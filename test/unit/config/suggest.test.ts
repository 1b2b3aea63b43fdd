import { describe, expect, it } from 'vitest';
import { closestName, editDistance } from '../../../src/config/suggest.js';

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['a', '', 1],
    ['maxPod', 'maxPods', 1],
    ['mxaPods', 'maxPods', 1],
    ['kitten', 'sitting', 3],
  ])('%s / %s → %i', (a, b, want) => expect(editDistance(a, b)).toBe(want));
});

describe('closestName', () => {
  const top = ['maxPods', 'healthzPort', 'port', 'podsPerCore', 'syncFrequency', 'authentication', 'authorization'];
  it.each([
    ['maxpods', 'maxPods'],
    ['MAXPODS', 'maxPods'],
    ['healthzport', 'healthzPort'],
    ['maxPod', 'maxPods'],
    ['syncFrequncy', 'syncFrequency'],
    ['authentication2', 'authentication'],
    ['prot', 'port'],
    ['colour', undefined],
    ['x', undefined],
    ['completelyDifferent', undefined],
  ])('%s → %s', (key, want) => expect(closestName(key, top)).toBe(want));
});
