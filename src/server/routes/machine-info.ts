// /spec/: the machine description cadvisor serves (its MachineInfo JSON), read
// from /proc and /sys on each request (a few small files; nothing cached, so a
// hot-added CPU or resized memory shows at once). Served: timestamp,
// cpu_vendor_id, num_cores, num_physical_cores, num_sockets, cpu_frequency_khz,
// memory_capacity, swap_capacity, hugepages, machine_id, system_uuid, boot_id,
// network_devices. Present but empty (cadvisor's discovery of these is not
// reimplemented): memory_by_type, nvm, filesystems, disk_map, topology;
// cloud_provider/instance_type "Unknown", instance_id "None".
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface CpuInfo {
  vendor: string;
  cores: number;
  physicalCores: number;
  sockets: number;
  /** From the first "cpu MHz" line, 0 when absent (e.g. arm64). */
  mhz: number;
}

/** Parses /proc/cpuinfo: logical CPUs, distinct (physical id, core id) pairs, distinct physical ids. */
export function parseCpuinfo(text: string): CpuInfo {
  let cores = 0;
  let vendor = '';
  let mhz = 0;
  let physical = '';
  const sockets = new Set<string>();
  const coreIds = new Set<string>();
  for (const line of text.split('\n')) {
    const i = line.indexOf(':');
    if (i < 0) continue;
    const key = line.slice(0, i).trim();
    const value = line.slice(i + 1).trim();
    if (key === 'processor') cores += 1;
    else if (key === 'vendor_id' && vendor === '') vendor = value;
    else if (key === 'cpu MHz' && mhz === 0) mhz = Number(value) || 0;
    else if (key === 'physical id') {
      physical = value;
      sockets.add(value);
    } else if (key === 'core id') coreIds.add(`${physical}/${value}`);
  }
  return {
    vendor,
    cores,
    physicalCores: coreIds.size > 0 ? coreIds.size : cores,
    sockets: Math.max(1, sockets.size),
    mhz,
  };
}

/** Parses /proc/meminfo's MemTotal and SwapTotal (kB) into bytes. */
export function parseMeminfo(text: string): { memory: number; swap: number } {
  const kb = (name: string): number => {
    const m = new RegExp(`^${name}:\\s+(\\d+)\\s*kB`, 'm').exec(text);
    return m === null ? 0 : Number(m[1]) * 1024;
  };
  return { memory: kb('MemTotal'), swap: kb('SwapTotal') };
}

async function read(path: string): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    // Absent or root-only (product_uuid): served empty, as cadvisor does.
    return '';
  }
}

async function list(path: string): Promise<string[]> {
  try {
    return (await readdir(path)).sort();
  } catch {
    return [];
  }
}

/** Reads the machine description under `root` ('/' in production, a fixture tree in tests). */
export async function readMachineInfo(root: string, now: () => Date = () => new Date()): Promise<Record<string, unknown>> {
  const at = (p: string): string => join(root, p);
  const cpu = parseCpuinfo(await read(at('proc/cpuinfo')));
  const mem = parseMeminfo(await read(at('proc/meminfo')));
  const maxFreq = Number(await read(at('sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq')));
  const machineId = (await read(at('etc/machine-id'))) || (await read(at('var/lib/dbus/machine-id')));
  const hugepages = [];
  for (const d of await list(at('sys/kernel/mm/hugepages'))) {
    const m = /^hugepages-(\d+)kB$/.exec(d);
    if (m === null) continue;
    hugepages.push({ page_size: Number(m[1]), num_pages: Number(await read(at(`sys/kernel/mm/hugepages/${d}/nr_hugepages`))) || 0 });
  }
  const network_devices = [];
  for (const name of await list(at('sys/class/net'))) {
    // cadvisor leaves out loopback and the virtual devices of containers and bridges.
    if (name === 'lo' || name.startsWith('veth') || name.startsWith('docker') || name.startsWith('cni')) continue;
    const dev = (f: string): Promise<string> => read(at(`sys/class/net/${name}/${f}`));
    network_devices.push({ name, mac_address: await dev('address'), speed: Number(await dev('speed')) || 0, mtu: Number(await dev('mtu')) || 0 });
  }
  return {
    timestamp: now().toISOString(),
    cpu_vendor_id: cpu.vendor,
    num_cores: cpu.cores,
    num_physical_cores: cpu.physicalCores,
    num_sockets: cpu.sockets,
    cpu_frequency_khz: maxFreq > 0 ? maxFreq : Math.round(cpu.mhz * 1000),
    memory_capacity: mem.memory,
    swap_capacity: mem.swap,
    memory_by_type: {},
    nvm: { memory_mode_capacity: 0, app_direct_mode_capacity: 0, avg_power_budget: 0 },
    hugepages,
    machine_id: machineId,
    system_uuid: await read(at('sys/class/dmi/id/product_uuid')),
    boot_id: await read(at('proc/sys/kernel/random/boot_id')),
    filesystems: [],
    disk_map: {},
    network_devices,
    topology: [],
    cloud_provider: 'Unknown',
    instance_type: 'Unknown',
    instance_id: 'None',
  };
}
