import { describe, expect, it } from 'vitest';
import {
  cpuNanosFromCgroupV2,
  cpuNanosFromProcStat,
  memoryFromCgroupV2,
  defaultRouteInterface,
  memoryFromCgroupV1,
  parseInteger,
  parseKeyValues,
  parseMeminfo,
  parseNetDev,
  processCpuNanos,
  processRssBytes,
  tasksFromLoadavg,
} from '../../../src/stats/parse.js';
import { MEMINFO, NET_DEV, NET_ROUTE, PROC_STAT } from './fixtures.js';

describe('cgroup v1 files', () => {
  it.each([
    ['12345\n', 12345],
    ['  7 ', 7],
    ['', undefined],
    ['max\n', undefined],
    ['-1', undefined],
  ])('parseInteger(%j) = %j', (text, want) => {
    expect(parseInteger(text)).toBe(want);
  });

  it('parseKeyValues keeps integer lines only', () => {
    expect([...parseKeyValues('cache 10\nrss 20\nbad line here\nhierarchical_memory_limit 9223372036854771712\n\n')]).toEqual([
      ['cache', 10],
      ['rss', 20],
      ['hierarchical_memory_limit', 9223372036854771712],
    ]);
  });

  it.each([
    ['usage and stat', { usage: '1000', stat: 'total_inactive_file 300\ntotal_rss 500\ntotal_pgfault 9\ntotal_pgmajfault 2\n', limit: '2000' }, { usageBytes: 1000, workingSetBytes: 700, rssBytes: 500, pageFaults: 9, majorPageFaults: 2, limitBytes: 2000 }],
    ['inactive file above usage floors at 0', { usage: '100', stat: 'total_inactive_file 300\n' }, { usageBytes: 100, workingSetBytes: 0 }],
    ['no stat: working set = usage', { usage: '100' }, { usageBytes: 100, workingSetBytes: 100 }],
    ['unlimited is no limit', { usage: '1', limit: '9223372036854771712' }, { usageBytes: 1, workingSetBytes: 1 }],
    ['nothing readable', {}, {}],
  ])('memoryFromCgroupV1: %s', (_name, files, want) => {
    expect(memoryFromCgroupV1(files)).toEqual(want);
  });
});

describe('cgroup v2 files', () => {
  it.each([
    ['current and stat', { current: '1000', stat: 'anon 500\nfile 400\ninactive_file 300\npgfault 9\npgmajfault 2\n', max: '2000\n' }, { usageBytes: 1000, workingSetBytes: 700, rssBytes: 500, pageFaults: 9, majorPageFaults: 2, limitBytes: 2000 }],
    ['max is no limit', { current: '5', max: 'max\n' }, { usageBytes: 5, workingSetBytes: 5 }],
    ['nothing readable', {}, {}],
  ])('memoryFromCgroupV2: %s', (_name, files, want) => {
    expect(memoryFromCgroupV2(files)).toEqual(want);
  });

  it.each([
    ['usage_usec 1500\nuser_usec 1000\nsystem_usec 500\n', 1_500_000],
    ['user_usec 1\n', undefined],
  ])('cpuNanosFromCgroupV2(%j)', (text, want) => {
    expect(cpuNanosFromCgroupV2(text)).toBe(want);
  });
});

describe('/proc files', () => {
  it.each([
    [PROC_STAT, (100 + 20 + 30 + 6 + 7 + 8) * 10_000_000],
    ['cpu  1 2 3 4\n', 6 * 10_000_000],
    ['cpu0 1 2 3 4\n', undefined],
    ['cpu  x y z w\n', undefined],
    ['', undefined],
  ])('cpuNanosFromProcStat(%j)', (text, want) => {
    expect(cpuNanosFromProcStat(text)).toBe(want);
  });

  it('parseMeminfo gives bytes', () => {
    const m = parseMeminfo(`${MEMINFO}HugePages_Total:       0\n`);
    expect(m.get('MemTotal')).toBe(16_000_000 * 1024);
    expect(m.get('MemAvailable')).toBe(12_000_000 * 1024);
    expect(m.get('HugePages_Total')).toBe(0);
  });

  it('parseNetDev skips loopback, container link ends, headers and short lines', () => {
    expect(parseNetDev(`${NET_DEV}  bad: 1 2 3\nveth12ab: 1 1 0 0 0 0 0 0 1 1 0 0 0 0 0 0\ndocker0: 1 1 0 0 0 0 0 0 1 1 0 0 0 0 0 0\n`)).toEqual([{ name: 'eth0', rxBytes: 1000, rxErrors: 1, txBytes: 2000, txErrors: 2 }]);
  });

  it.each([
    [NET_ROUTE, 'eth0'],
    ['Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\neth1\t0000A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\n', undefined],
    ['', undefined],
  ])('defaultRouteInterface', (text, want) => {
    expect(defaultRouteInterface(text)).toBe(want);
  });

  it.each([
    ['0.10 0.20 0.30 2/345 6789\n', 345],
    ['garbage', undefined],
  ])('tasksFromLoadavg(%j)', (text, want) => {
    expect(tasksFromLoadavg(text)).toBe(want);
  });

  it.each([
    ['42 (node) S 1 42 42 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 11 0 1000 0 0', 300 * 10_000_000],
    ['42 (a) b) c) S 1 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 11 0 1000 0 0', 3 * 10_000_000],
    ['no parens', undefined],
  ])('processCpuNanos(%j)', (text, want) => {
    expect(processCpuNanos(text)).toBe(want);
  });

  it('processRssBytes', () => {
    expect(processRssBytes('Name:\tx\nVmRSS:\t   100 kB\n')).toBe(102_400);
    expect(processRssBytes('Name:\tx\n')).toBeUndefined();
  });
});
