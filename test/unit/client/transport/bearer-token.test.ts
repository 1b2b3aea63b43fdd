import { describe, expect, it } from 'vitest';
import { BearerToken, type TokenFileIo } from '../../../../src/client/transport/bearer-token.js';
import { testLogger } from '../../../helpers/test-logger.js';

/** An in-memory token file whose operations are counted. */
function fakeFile(initial: string | undefined) {
  const f = { content: initial, mtime: 1, stats: 0, reads: 0 };
  const io: TokenFileIo = {
    stat: async () => {
      f.stats++;
      if (f.content === undefined) throw Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' });
      return { mtimeMs: f.mtime, size: f.content.length, ino: 7 };
    },
    read: async () => {
      f.reads++;
      if (f.content === undefined) throw new Error('ENOENT: no such file');
      return f.content;
    },
  };
  const write = (s: string | undefined): void => {
    f.content = s;
    f.mtime++;
  };
  return { f, io, write };
}

describe('BearerToken', () => {
  it('a fixed token is sent as is, never a file look', async () => {
    const t = new BearerToken({ token: 'abc', tokenFile: undefined, log: testLogger(), now: () => 0 });
    expect(await t.current()).toBe('abc');
    expect(t.fileBacked).toBe(false);
    expect(await t.reload()).toBe(false);
  });

  it('stats the file at most once a second and re-reads only when it changed', async () => {
    let now = 0;
    const { f, io, write } = fakeFile('one\n');
    const t = new BearerToken({ token: 'fixed', tokenFile: '/tok', log: testLogger(), now: () => now, io });
    expect(await t.current()).toBe('one');
    expect([f.stats, f.reads]).toEqual([1, 1]);
    write('two');
    now = 999;
    expect(await t.current()).toBe('one');
    expect(f.stats).toBe(1);
    now = 1000;
    expect(await t.current()).toBe('two');
    expect([f.stats, f.reads]).toEqual([2, 2]);
    now = 2500;
    expect(await t.current()).toBe('two');
    expect([f.stats, f.reads]).toEqual([3, 2]);
  });

  it('concurrent callers share one look', async () => {
    const { f, io } = fakeFile('x');
    const t = new BearerToken({ token: undefined, tokenFile: '/tok', log: testLogger(), now: () => 0, io });
    expect(await Promise.all([t.current(), t.current(), t.current()])).toEqual(['x', 'x', 'x']);
    expect(f.stats).toBe(1);
  });

  it('reload() reads at once (after a 401) and says whether the token changed', async () => {
    const { io, write } = fakeFile('one');
    const t = new BearerToken({ token: undefined, tokenFile: '/tok', log: testLogger(), now: () => 0, io });
    await t.current();
    expect(await t.reload()).toBe(false);
    write('two');
    expect(await t.reload()).toBe(true);
    expect(await t.current()).toBe('two');
  });

  it('a file that went away keeps the last token and logs once', async () => {
    let now = 0;
    const log = testLogger();
    const { io, write } = fakeFile('one');
    const t = new BearerToken({ token: undefined, tokenFile: '/tok', log, now: () => now, io });
    await t.current();
    write(undefined);
    for (let i = 1; i <= 3; i++) {
      now = i * 1000;
      expect(await t.current()).toBe('one');
    }
    write('');
    now = 10_000;
    expect(await t.current()).toBe('one');
    expect(log.records.map((r) => [r.level, r.fields['err']])).toEqual([
      ['warn', 'ENOENT: no such file'],
      ['warn', 'the file is empty'],
    ]);
  });
});
