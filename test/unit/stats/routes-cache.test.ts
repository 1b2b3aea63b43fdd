import { describe, expect, it } from 'vitest';
import type { StatsProvider } from '../../../src/stats/provider.js';
import { statsRoutes } from '../../../src/stats/routes.js';
import type { RouteContext } from '../../../src/server/types.js';

type Snap = NonNullable<ReturnType<StatsProvider['snapshot']>>;

const snap = (nodeName: string): Snap => ({ summary: { node: { nodeName }, pods: [] }, cpuAndMemory: { node: { nodeName: `${nodeName}-cm` }, pods: [] } }) as unknown as Snap;

async function summaryBody(routes: ReturnType<typeof statsRoutes>, query = ''): Promise<{ body: string; buffer: Buffer }> {
  const route = routes.find((r) => r.path === '/stats/summary');
  let written: Buffer | string = '';
  const res = { writeHead: () => res, end: (b: Buffer | string) => (written = b) };
  await route?.handle({ res, url: new URL(`http://x/stats/summary${query}`) } as unknown as RouteContext);
  const buffer = Buffer.isBuffer(written) ? written : Buffer.from(written);
  return { body: buffer.toString(), buffer };
}

describe('stats routes: one rendering per snapshot', () => {
  it('serves the same bytes until the provider replaces its snapshot, then the new one', async () => {
    let current = snap('a');
    const provider = { snapshot: () => current } as unknown as StatsProvider;
    const routes = statsRoutes(provider);
    const first = await summaryBody(routes);
    const again = await summaryBody(routes);
    expect(JSON.parse(first.body)).toEqual({ node: { nodeName: 'a' }, pods: [] });
    expect(again.buffer).toBe(first.buffer);
    expect(JSON.parse((await summaryBody(routes, '?only_cpu_and_memory=true')).body)).toEqual({ node: { nodeName: 'a-cm' }, pods: [] });
    current = snap('b');
    expect(JSON.parse((await summaryBody(routes)).body)).toEqual({ node: { nodeName: 'b' }, pods: [] });
  });
});
