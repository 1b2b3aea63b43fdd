// Pure parts of the lock module; the process-level behaviour is in
// test/integration/lifecycle/lockfile.test.ts.
import { describe, expect, it } from 'vitest';
import { procLocksHasFlockWaiter } from '../../../src/lifecycle/lockfile.js';

/** glibc makedev(): how stat() encodes st_dev. */
function makedev(major: bigint, minor: bigint): bigint {
  return (minor & 0xffn) | ((major & 0xfffn) << 8n) | ((minor & ~0xffn) << 12n) | ((major & ~0xfffn) << 32n);
}

const SAMPLE = [
  '1: FLOCK  ADVISORY  WRITE 3354 fe:00:2146374 0 EOF',
  '1: -> FLOCK  ADVISORY  WRITE 3357 fe:00:2146374 0 EOF',
  '2: POSIX  ADVISORY  WRITE 812 103:12c:77 0 EOF',
  '2: -> POSIX  ADVISORY  WRITE 813 103:12c:77 0 EOF',
  '3: FLOCK  ADVISORY  WRITE 900 103:12c:88 0 EOF',
  '3: -> FLOCK  ADVISORY  WRITE 901 103:12c:88 0 EOF',
  '4: OFDLCK ADVISORY  READ  -1 00:2e:5 0 EOF',
  '',
].join('\n');

describe('procLocksHasFlockWaiter', () => {
  it('finds a blocked flock waiter on the same device and inode', () => {
    expect(procLocksHasFlockWaiter(SAMPLE, makedev(0xfen, 0n), 2146374n)).toBe(true);
  });

  it('decodes devices with major > 255 and minor > 255', () => {
    expect(procLocksHasFlockWaiter(SAMPLE, makedev(0x103n, 0x12cn), 88n)).toBe(true);
  });

  it('ignores holders, POSIX waiters, other inodes and other devices', () => {
    expect(procLocksHasFlockWaiter(SAMPLE, makedev(0x103n, 0x12cn), 77n)).toBe(false);
    expect(procLocksHasFlockWaiter(SAMPLE, makedev(0xfen, 0n), 2146375n)).toBe(false);
    expect(procLocksHasFlockWaiter(SAMPLE, makedev(0xfdn, 0n), 2146374n)).toBe(false);
    expect(procLocksHasFlockWaiter(SAMPLE.split('\n')[0] ?? '', makedev(0xfen, 0n), 2146374n)).toBe(false);
  });
});
