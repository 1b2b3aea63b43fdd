// The shared storage suite against the in-memory store, and its list pages:
// served from the live keys kept per (prefix, revision), they must equal a
// key-by-key read (the predicate path) whatever was written between pages.
import { describe, expect, it } from 'vitest';
import type { Storage } from '../../../../src/apiserver/storage/interface.js';
import { createMemoryStorage } from '../../../../src/apiserver/storage/memory.js';
import { describeStorage } from './suite.js';

describeStorage('memory', () => Promise.resolve(createMemoryStorage()));

const b = (s: string): Uint8Array => Buffer.from(s);

/** Every page of `prefix` at `revision` (limit `limit`), and what a key-by-key read of the same state gives. */
async function pagesAndReference(s: Storage, prefix: string, limit: number, revision?: number): Promise<{ paged: string[]; remaining: number[]; reference: string[] }> {
  const paged: string[] = [];
  const remaining: number[] = [];
  let startKey: string | undefined;
  let at = revision;
  for (let i = 0; i < 100; i++) {
    const page = await s.list(prefix, { limit, ...(startKey === undefined ? {} : { startKey }), ...(at === undefined ? {} : { revision: at }) });
    at = page.revision;
    paged.push(...page.items.map((kv) => `${kv.key}@${kv.modRevision}`));
    remaining.push(page.remaining ?? -1);
    const last = page.items.at(-1);
    if (!page.more || last === undefined) break;
    startKey = `${last.key}\x00`;
  }
  const reference = (await s.list(prefix, { predicate: () => true, ...(at === undefined ? {} : { revision: at }) })).items.map((kv) => `${kv.key}@${kv.modRevision}`);
  return { paged, remaining, reference };
}

describe('memory store: list pages', () => {
  it('pages at one revision stay that revision while keys are created, updated and deleted between pages, under several prefixes', async () => {
    const s = createMemoryStorage();
    for (let i = 0; i < 40; i++) await s.create(`pods/ns${i % 3}/p${String(i).padStart(2, '0')}`, b(String(i)));
    const first = await s.list('pods/', { limit: 7 });
    // Writes after the first page: none of them is in the pages read at its revision.
    await s.delete('pods/ns0/p00');
    await s.delete('pods/ns1/p10');
    const kv = await s.get('pods/ns2/p20');
    await s.update('pods/ns2/p20', b('new'), kv!.modRevision);
    await s.create('pods/ns0/p00a', b('late'));
    // Another list in between takes a place in the kept answers.
    await pagesAndReference(s, 'pods/ns1/', 3);
    const old = await pagesAndReference(s, 'pods/', 7, first.revision);
    expect(old.paged).toEqual(old.reference);
    expect(old.paged).toHaveLength(40);
    expect(old.remaining).toEqual([33, 26, 19, 12, 5, 0]);
    const now = await pagesAndReference(s, 'pods/', 7);
    expect(now.paged).toEqual(now.reference);
    expect(now.paged).toHaveLength(39);
    expect(now.paged).toContain('pods/ns0/p00a@' + String((await s.get('pods/ns0/p00a'))!.modRevision));
    expect(now.paged.some((k) => k.startsWith('pods/ns1/p10@'))).toBe(false);
    for (const ns of ['pods/ns0/', 'pods/ns1/', 'pods/ns2/', 'pods/ns3/']) {
      const r = await pagesAndReference(s, ns, 4);
      expect(r.paged, ns).toEqual(r.reference);
    }
    await s.close();
  });

  it('after compaction the kept answers of compacted revisions are never served', async () => {
    const s = createMemoryStorage();
    for (let i = 0; i < 5; i++) await s.create(`k/${i}`, b('v'));
    const p = await s.list('k/', { limit: 2 });
    await s.delete('k/0');
    await s.compact(await s.currentRevision());
    await expect(s.list('k/', { limit: 2, revision: p.revision, startKey: 'k/1\x00' })).rejects.toMatchObject({ code: 'Compacted' });
    expect((await s.list('k/')).items.map((kv) => kv.key)).toEqual(['k/1', 'k/2', 'k/3', 'k/4']);
    await s.close();
  });
});
