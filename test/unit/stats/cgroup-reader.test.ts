import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CgroupReader } from '../../../src/stats/cgroup-reader.js';

let mount: string;
const REL = '/k8s.io/c1';
async function put(controller: 'cpuacct' | 'memory', file: string, text: string): Promise<void> {
  await mkdir(join(mount, controller, REL), { recursive: true });
  await writeFile(join(mount, controller, REL, file), text);
}

beforeEach(async () => {
  mount = await mkdtemp(join(tmpdir(), 'cgroup-reader-'));
  await put('cpuacct', 'cpuacct.usage', '5000\n');
  await put('memory', 'memory.usage_in_bytes', '1000\n');
  await put('memory', 'memory.stat', 'total_inactive_file 200\ntotal_rss 600\ntotal_pgfault 7\ntotal_pgmajfault 1\n');
  await put('memory', 'memory.limit_in_bytes', '4096\n');
  await put('memory', 'cgroup.procs', '42\n43\n');
});
afterEach(async () => {
  await rm(mount, { recursive: true, force: true });
});

describe('CgroupReader (v1)', () => {
  it('reads the wanted figures every time and the limit and first process once per ttl', async () => {
    let t = 0;
    const r = new CgroupReader(mount, 60_000, () => t);
    expect(await r.read(REL, { cpu: true, memory: true })).toEqual({
      cpuNanos: 5000,
      firstPid: 42,
      memory: { usageBytes: 1000, workingSetBytes: 800, rssBytes: 600, pageFaults: 7, majorPageFaults: 1, limitBytes: 4096 },
    });
    await put('memory', 'memory.usage_in_bytes', '1500\n');
    await put('memory', 'memory.limit_in_bytes', '8192\n');
    await put('memory', 'cgroup.procs', '99\n');
    t = 59_999;
    expect(await r.read(REL, { cpu: true, memory: true })).toMatchObject({ firstPid: 42, memory: { usageBytes: 1500, limitBytes: 4096 } });
    t = 60_000;
    expect(await r.read(REL, { cpu: true, memory: true })).toMatchObject({ firstPid: 99, memory: { usageBytes: 1500, limitBytes: 8192 } });
  });

  it('leaves out what is not wanted: CPU alone, or the limit and first process alone', async () => {
    const r = new CgroupReader(mount, 60_000, () => 0);
    expect(await r.read(REL, { cpu: true, memory: false })).toEqual({ cpuNanos: 5000, firstPid: 42, memory: { limitBytes: 4096 } });
    expect(await r.read(REL, { cpu: false, memory: false })).toEqual({ firstPid: 42, memory: { limitBytes: 4096 } });
    expect(await r.firstPid(REL)).toBe(42);
  });

  it('answers undefined for a cgroup that went, and asks an empty one again instead of remembering it', async () => {
    const r = new CgroupReader(mount, 60_000, () => 0);
    expect(await r.read('/k8s.io/gone', { cpu: true, memory: true })).toBeUndefined();
    expect(await r.read('/k8s.io/gone', { cpu: false, memory: false })).toBeUndefined();
    await put('memory', 'cgroup.procs', '');
    expect(await r.firstPid(REL)).toBeUndefined();
    await put('memory', 'cgroup.procs', '7\n');
    expect(await r.firstPid(REL)).toBe(7);
  });

  it('forgets cgroups no longer live', async () => {
    const r = new CgroupReader(mount, 60_000, () => 0);
    expect(await r.firstPid(REL)).toBe(42);
    await put('memory', 'cgroup.procs', '11\n');
    r.retain(new Set([REL]));
    expect(await r.firstPid(REL)).toBe(42);
    r.retain(new Set());
    expect(await r.firstPid(REL)).toBe(11);
  });
});
