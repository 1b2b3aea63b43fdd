// Host facts the node's status reports (the kubelet gets them from cadvisor's
// MachineInfo and its own readers): memory, hugepages, the root directory's
// filesystem, machine/boot identity and the OS image. Readers take a `root`
// ('/' in production, a fixture tree in tests) and never throw: a file that is
// absent or unreadable (product_uuid is root-only) reads as '' or undefined,
// and the status then leaves the field out rather than reporting 0. Parsers
// are pure and exported for table tests.
import { readdir, readFile, statfs } from 'node:fs/promises';
import { arch, platform, release } from 'node:os';
import { join } from 'node:path';

/** /proc/meminfo's MemTotal in bytes; undefined when absent. */
export function parseMemTotal(text: string): number | undefined {
  const m = /^MemTotal:\s+(\d+)\s*kB/m.exec(text);
  return m === null ? undefined : Number(m[1]) * 1024;
}

/** /etc/os-release's PRETTY_NAME (quotes removed); 'Linux' when absent, as cadvisor's fallback. */
export function parseOsImage(text: string): string {
  const m = /^PRETTY_NAME=(.*)$/m.exec(text);
  if (m === null) return 'Linux';
  const v = (m[1] ?? '').trim();
  return v.replace(/^(["'])(.*)\1$/, '$2');
}

/** A hugepages directory name (`hugepages-2048kB`) → page size in bytes; undefined when it is not one. */
export function hugePageSizeBytes(dirName: string): number | undefined {
  const m = /^hugepages-(\d+)kB$/.exec(dirName);
  return m === null ? undefined : Number(m[1]) * 1024;
}

export interface HugePages {
  /** Page size in bytes. */
  readonly pageSize: number;
  readonly pages: number;
}

export interface HostInfo {
  /** Bytes; undefined when /proc/meminfo could not be read. */
  readonly memoryBytes: number | undefined;
  readonly hugePages: readonly HugePages[];
  /** statfs of the root directory (bytes); undefined when it failed. */
  readonly rootFsBytes: number | undefined;
  readonly machineID: string;
  readonly systemUUID: string;
  readonly bootID: string;
  readonly kernelVersion: string;
  readonly osImage: string;
  /** Go's GOOS / GOARCH spelling (`linux`, `amd64`, `arm64`). */
  readonly operatingSystem: string;
  readonly architecture: string;
}

const GO_ARCH: Readonly<Record<string, string>> = { x64: 'amd64', ia32: '386', arm: 'arm', arm64: 'arm64', ppc64: 'ppc64le', s390x: 's390x', riscv64: 'riscv64' };

/** Node's process.arch → Go's GOARCH (the value of the platform.io/arch label). */
export const goArch = (a: string = arch()): string => GO_ARCH[a] ?? a;
/** Node's process.platform → Go's GOOS (`win32` → `windows`). */
export const goOs = (p: string = platform()): string => (p === 'win32' ? 'windows' : p);

async function read(path: string): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    return '';
  }
}

async function readHugePages(dir: string): Promise<HugePages[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch {
    return [];
  }
  const out: HugePages[] = [];
  for (const n of names) {
    const pageSize = hugePageSizeBytes(n);
    if (pageSize === undefined) continue;
    const pages = Number(await read(join(dir, n, 'nr_hugepages')));
    out.push({ pageSize, pages: Number.isFinite(pages) ? pages : 0 });
  }
  return out;
}

async function fsBytes(path: string): Promise<number | undefined> {
  try {
    const s = await statfs(path);
    return s.blocks * s.bsize;
  } catch {
    return undefined;
  }
}

/**
 * Reads the host's facts under `root`; `rootDir` is the agent's --root-dir
 * (its filesystem is the node's ephemeral storage). A few small files and one
 * statfs: the status loop calls it once per update (10 s by default).
 */
export async function readHostInfo(rootDir: string, root = '/'): Promise<HostInfo> {
  const at = (p: string): string => join(root, p);
  const [meminfo, hugePages, rootFsBytes, machineID, systemUUID, bootID, osRelease] = await Promise.all([
    read(at('proc/meminfo')),
    readHugePages(at('sys/kernel/mm/hugepages')),
    fsBytes(rootDir),
    read(at('etc/machine-id')),
    read(at('sys/class/dmi/id/product_uuid')),
    read(at('proc/sys/kernel/random/boot_id')),
    read(at('etc/os-release')),
  ]);
  return {
    memoryBytes: parseMemTotal(meminfo),
    hugePages,
    rootFsBytes,
    machineID,
    systemUUID,
    bootID,
    kernelVersion: release(),
    osImage: parseOsImage(osRelease),
    operatingSystem: goOs(),
    architecture: goArch(),
  };
}
