import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { goArch, goOs, hugePageSizeBytes, parseMemTotal, parseOsImage, readHostInfo } from '../../../src/node/host-info.js';

describe('host-info parsers', () => {
  it.each([
    ['MemTotal:       16318480 kB\nMemFree: 1 kB\n', 16318480 * 1024],
    ['MemFree: 1 kB\n', undefined],
  ])('MemTotal of %j', (text, want) => expect(parseMemTotal(text)).toBe(want));
  it.each([
    ['NAME="Debian"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n', 'Debian GNU/Linux 12 (bookworm)'],
    ["PRETTY_NAME='Alpine Linux v3.19'\n", 'Alpine Linux v3.19'],
    ['PRETTY_NAME=Plain\n', 'Plain'],
    ['', 'Linux'],
  ])('osImage of %j', (text, want) => expect(parseOsImage(text)).toBe(want));
  it.each([
    ['hugepages-2048kB', 2 * 1024 * 1024],
    ['hugepages-1048576kB', 1024 ** 3],
    ['other', undefined],
  ])('page size of %s', (dir, want) => expect(hugePageSizeBytes(dir)).toBe(want));
  it('spells os and arch as Go does', () => {
    expect(goArch('x64')).toBe('amd64');
    expect(goArch('arm64')).toBe('arm64');
    expect(goOs('linux')).toBe('linux');
    expect(goOs('win32')).toBe('windows');
  });
});

describe('readHostInfo over a fixture tree', () => {
  const root = mkdtempSync(join(tmpdir(), 'host-info-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  it('reads identity, memory and hugepages; absent files read as empty', async () => {
    const w = (p: string, text: string): void => {
      mkdirSync(join(root, p, '..'), { recursive: true });
      writeFileSync(join(root, p), text);
    };
    w('proc/meminfo', 'MemTotal: 2048 kB\n');
    w('etc/machine-id', 'abc123\n');
    w('proc/sys/kernel/random/boot_id', 'boot-1\n');
    w('etc/os-release', 'PRETTY_NAME="Test OS"\n');
    w('sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages', '3\n');
    const info = await readHostInfo(root, root);
    expect(info).toMatchObject({ memoryBytes: 2048 * 1024, machineID: 'abc123', bootID: 'boot-1', systemUUID: '', osImage: 'Test OS', hugePages: [{ pageSize: 2 * 1024 * 1024, pages: 3 }] });
    expect(info.rootFsBytes).toBeGreaterThan(0);
    expect((await readHostInfo(join(root, 'missing'), join(root, 'missing'))).rootFsBytes).toBeUndefined();
  });
});
