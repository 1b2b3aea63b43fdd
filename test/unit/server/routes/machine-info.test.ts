// /spec/'s machine description: the /proc parsers by table, the reader on a fixture tree.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCpuinfo, parseMeminfo, readMachineInfo } from '../../../../src/server/routes/machine-info.js';

const X86 = ['processor\t: 0', 'vendor_id\t: GenuineIntel', 'cpu MHz\t\t: 2400.000', 'physical id\t: 0', 'core id\t\t: 0', '', 'processor\t: 1', 'vendor_id\t: GenuineIntel', 'cpu MHz\t\t: 2400.000', 'physical id\t: 0', 'core id\t\t: 0', '', 'processor\t: 2', 'physical id\t: 1', 'core id\t\t: 0', ''].join('\n');
const ARM = ['processor\t: 0', 'BogoMIPS\t: 50.00', '', 'processor\t: 1', 'BogoMIPS\t: 50.00', ''].join('\n');

describe('parseCpuinfo', () => {
  it.each([
    ['x86 with hyperthreads on two sockets', X86, { vendor: 'GenuineIntel', cores: 3, physicalCores: 2, sockets: 2, mhz: 2400 }],
    ['arm64 without topology lines', ARM, { vendor: '', cores: 2, physicalCores: 2, sockets: 1, mhz: 0 }],
    ['empty', '', { vendor: '', cores: 0, physicalCores: 0, sockets: 1, mhz: 0 }],
  ])('%s', (_n, text, want) => expect(parseCpuinfo(text)).toEqual(want));
});

describe('parseMeminfo', () => {
  it.each([
    ['MemTotal:       16303636 kB\nMemFree:  1 kB\nSwapTotal:       2097148 kB\n', { memory: 16303636 * 1024, swap: 2097148 * 1024 }],
    ['MemTotal: 1024 kB\n', { memory: 1024 * 1024, swap: 0 }],
    ['garbage', { memory: 0, swap: 0 }],
  ])('%j', (text, want) => expect(parseMeminfo(text)).toEqual(want));
});

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function tree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'agent-spec-'));
  dirs.push(root);
  for (const [p, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, p)), { recursive: true });
    await writeFile(join(root, p), content);
  }
  return root;
}

describe('readMachineInfo', () => {
  it('reads every served field from its file', async () => {
    const root = await tree({
      'proc/cpuinfo': X86,
      'proc/meminfo': 'MemTotal: 2048 kB\nSwapTotal: 0 kB\n',
      'proc/sys/kernel/random/boot_id': 'boot-1\n',
      'etc/machine-id': 'mid\n',
      'sys/class/dmi/id/product_uuid': 'uuid-1\n',
      'sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq': '3000000\n',
      'sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages': '4\n',
      'sys/class/net/eth0/address': 'aa:bb:cc:dd:ee:ff\n',
      'sys/class/net/eth0/mtu': '1500\n',
      'sys/class/net/eth0/speed': '1000\n',
      'sys/class/net/lo/address': '00:00:00:00:00:00\n',
      'sys/class/net/veth1/mtu': '1500\n',
    });
    const info = await readMachineInfo(root, () => new Date('2026-11-24T00:00:00Z'));
    expect(info).toMatchObject({
      timestamp: '2026-11-24T00:00:00.000Z',
      cpu_vendor_id: 'GenuineIntel',
      num_cores: 3,
      num_physical_cores: 2,
      num_sockets: 2,
      cpu_frequency_khz: 3000000,
      memory_capacity: 2048 * 1024,
      swap_capacity: 0,
      hugepages: [{ page_size: 2048, num_pages: 4 }],
      machine_id: 'mid',
      system_uuid: 'uuid-1',
      boot_id: 'boot-1',
      network_devices: [{ name: 'eth0', mac_address: 'aa:bb:cc:dd:ee:ff', speed: 1000, mtu: 1500 }],
      filesystems: [],
      topology: [],
      instance_id: 'None',
    });
  });

  it('serves empty values where files are missing, the MHz line when there is no cpufreq, dbus machine-id as fallback', async () => {
    const root = await tree({ 'proc/cpuinfo': X86, 'var/lib/dbus/machine-id': 'dbus-id\n' });
    const info = await readMachineInfo(root);
    expect(info).toMatchObject({ cpu_frequency_khz: 2400000, memory_capacity: 0, machine_id: 'dbus-id', system_uuid: '', boot_id: '', hugepages: [], network_devices: [] });
  });
});
