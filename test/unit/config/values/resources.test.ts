import { describe, expect, it } from 'vitest';
import {
  RESERVABLE_RESOURCES,
  mergeReservedMemory,
  parseReservedMemory,
  validatePercentMap,
  validateReservedMemory,
  validateResourceList,
} from '../../../../src/config/values/resources.js';
import { ValueError } from '../../../../src/errors.js';

describe('validateResourceList', () => {
  it.each([
    [{}],
    [{ cpu: '500m', memory: '1Gi', 'ephemeral-storage': '10Gi', pid: '1000' }],
    [{ cpu: '0' }],
  ])('accepts %j', (map) => {
    expect(validateResourceList(map, RESERVABLE_RESOURCES)).toEqual([]);
  });

  it.each([
    [{ gpu: '1' }, ['cannot reserve "gpu" resource (supported: cpu, memory, ephemeral-storage, pid)']],
    [{ memory: '1K' }, ['"memory": invalid quantity "1K": unknown suffix "K" (use Ki, Mi, Gi, Ti, Pi, Ei, n, u, m, k, M, G, T, P, E, or an exponent such as e3)']],
    [{ cpu: '-1' }, ['quantity for "cpu" cannot be negative: "-1"']],
    [{ cpu: '-1', gpu: '1' }, ['quantity for "cpu" cannot be negative: "-1"', 'cannot reserve "gpu" resource (supported: cpu, memory, ephemeral-storage, pid)']],
  ])('reports %j', (map, problems) => {
    expect(validateResourceList(map, RESERVABLE_RESOURCES)).toEqual(problems);
  });

  it('uses the allowed list it is given', () => {
    expect(validateResourceList({ pid: '1' }, ['cpu'])).toEqual(['cannot reserve "pid" resource (supported: cpu)']);
  });
});

describe('parseReservedMemory', () => {
  it.each([
    ['', []],
    ['0:memory=1Gi', [{ numaNode: 0, limits: { memory: '1Gi' } }]],
    ['0:memory=1Gi,hugepages-1M=2Gi', [{ numaNode: 0, limits: { memory: '1Gi', 'hugepages-1M': '2Gi' } }]],
    [
      '0:memory=1Gi;1:memory=2Gi,hugepages-2Mi=512Mi',
      [
        { numaNode: 0, limits: { memory: '1Gi' } },
        { numaNode: 1, limits: { memory: '2Gi', 'hugepages-2Mi': '512Mi' } },
      ],
    ],
    [' 1 : memory = 1Gi ', [{ numaNode: 1, limits: { memory: '1Gi' } }]],
    ['2147483647:memory=1Gi', [{ numaNode: 2147483647, limits: { memory: '1Gi' } }]],
  ])('parses %j', (text, list) => {
    expect(parseReservedMemory(text)).toEqual(list);
  });

  it.each([
    ['memory=1Gi', 'invalid reserved memory "memory=1Gi": "memory=1Gi": expected numaNode:type=quantity[,type=quantity...] with entries separated by ";"'],
    ['0:memory=1Gi:x', 'expected numaNode:type=quantity'],
    ['-1:memory=1Gi', 'invalid reserved memory "-1:memory=1Gi": NUMA node "-1" is not a non-negative integer'],
    ['a:memory=1Gi', 'NUMA node "a" is not a non-negative integer'],
    // NumaNode is an int32 in the kubelet; Go's Atoi + int32() would wrap 4294967296 to node 0.
    ['4294967296:memory=1Gi', 'invalid reserved memory "4294967296:memory=1Gi": NUMA node 4294967296 is above the int32 maximum 2147483647'],
    ['2147483648:memory=1Gi', 'NUMA node 2147483648 is above the int32 maximum 2147483647'],
    ['0:memory', 'invalid reserved memory "0:memory": "memory": expected type=quantity'],
    ['0:', 'invalid reserved memory "0:": "": expected type=quantity'],
    ['0:cpu=1', 'invalid reserved memory "0:cpu=1": unsupported memory type "cpu" (use memory or hugepages-<size>, e.g. hugepages-2Mi)'],
    ['0:hugepages-=1Gi', 'unsupported memory type "hugepages-"'],
    ['0:hugepages-x=1Gi', 'unsupported memory type "hugepages-x"'],
    ['0:memory=1K', 'invalid reserved memory "0:memory=1K": "memory": invalid quantity "1K"'],
    ['0:memory=1Gi;', 'invalid reserved memory "0:memory=1Gi;": "": expected numaNode:type=quantity'],
  ])('rejects %j', (text, message) => {
    expect(() => parseReservedMemory(text)).toThrow(ValueError);
    expect(() => parseReservedMemory(text)).toThrow(message);
  });

  it('accumulates repeated flags in order', () => {
    const a = parseReservedMemory('0:memory=1Gi');
    const b = parseReservedMemory('1:memory=2Gi');
    expect(mergeReservedMemory(a, b)).toEqual([...a, ...b]);
    expect(mergeReservedMemory([], b)).toEqual(b);
  });
});

describe('validateReservedMemory', () => {
  it('accepts distinct node/resource pairs', () => {
    expect(
      validateReservedMemory([
        { numaNode: 0, limits: { memory: '1Gi', 'hugepages-2Mi': '1Gi' } },
        { numaNode: 1, limits: { memory: '1Gi' } },
      ]),
    ).toEqual([]);
  });

  it.each([
    [[{ numaNode: 0, limits: { memory: '1Gi' } }, { numaNode: 0, limits: { memory: '2Gi' } }], ['NUMA node 0 resource "memory": duplicate reservation']],
    [[{ numaNode: -1, limits: {} }], ['NUMA node -1 is not a non-negative integer']],
    [[{ numaNode: 1.5, limits: {} }], ['NUMA node 1.5 is not a non-negative integer']],
    [[{ numaNode: 2 ** 31, limits: {} }], ['NUMA node 2147483648 is above the int32 maximum 2147483647']],
    [[{ numaNode: 0, limits: { cpu: '1' } }], ['NUMA node 0 resource "cpu": unsupported memory type "cpu" (use memory or hugepages-<size>, e.g. hugepages-2Mi)']],
    [[{ numaNode: 0, limits: { memory: '0' } }], ['NUMA node 0 resource "memory": reserved memory may not be zero']],
    [[{ numaNode: 0, limits: { memory: '-1Gi' } }], ['NUMA node 0 resource "memory": reserved memory may not be negative: "-1Gi"']],
    [[{ numaNode: 0, limits: { memory: 'lots' } }], ['NUMA node 0 resource "memory": invalid quantity "lots": expected a number with an optional suffix, e.g. 100Mi or 500m']],
  ])('reports %j', (list, problems) => {
    expect(validateReservedMemory(list)).toEqual(problems);
  });
});

describe('validatePercentMap', () => {
  it.each([[{}], [{ memory: '50%' }], [{ memory: '0%' }], [{ memory: '100%' }]])('accepts %j', (map) => {
    expect(validatePercentMap(map)).toEqual([]);
  });

  it.each([
    [{ cpu: '50%' }, 'cannot reserve "cpu" resource (only memory is supported)'],
    [{ memory: '101%' }, 'invalid percentage "101%" for "memory": must be between 0% and 100%'],
    [{ memory: '50' }, 'invalid percentage "50" for "memory": expected an integer percentage such as 50%'],
    [{ memory: '-5%' }, 'invalid percentage "-5%" for "memory": expected an integer percentage'],
    [{ memory: '1.5%' }, 'invalid percentage "1.5%" for "memory"'],
  ])('rejects %j', (map, message) => {
    expect(validatePercentMap(map)[0]).toContain(message);
  });

  it('reports every problem of a map', () => {
    expect(validatePercentMap({ memory: '500%', pid: '1%' })).toEqual([
      'invalid percentage "500%" for "memory": must be between 0% and 100%',
      'cannot reserve "pid" resource (only memory is supported)',
    ]);
  });
});
