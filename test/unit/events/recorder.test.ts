// The recorder's writes against a stub events client: what each answer leads
// to (client-go's recordEvent): a rejection is final and logged once per
// problem, AlreadyExists is dropped quietly, a repeat whose event the server
// lost is created again, a connection failure is retried within the bound;
// the spam filter and event() after the stop send nothing.
import { describe, expect, it } from 'vitest';
import { ApiStatusError, ClientConnectionError, type ApiClient, type ApiObject } from '../../../src/client/index.js';
import { createEventRecorder, podRef } from '../../../src/events/index.js';
import { testLogger, type LogRecord } from '../../helpers/test-logger.js';

type Answer = 'ok' | 'notFound' | 'alreadyExists' | 'invalid' | 'conn';

const REQ = { method: 'POST' as const, path: '/api/v1/namespaces/ns/events' };
const err = (a: Exclude<Answer, 'ok'>): Error => {
  if (a === 'conn') return new ClientConnectionError(REQ, 'connect ECONNREFUSED');
  const [code, reason] = a === 'notFound' ? [404, 'NotFound'] : a === 'alreadyExists' ? [409, 'AlreadyExists'] : [422, 'Invalid'];
  return new ApiStatusError(REQ, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message: reason } as never, undefined);
};

function stub(answers: Answer[]): { client: ApiClient; calls: string[] } {
  const calls: string[] = [];
  const answer = (verb: string, obj: ApiObject): Promise<ApiObject> => {
    calls.push(verb);
    const a = answers.shift() ?? 'ok';
    return a === 'ok' ? Promise.resolve({ ...obj, metadata: { ...(obj['metadata'] as object), resourceVersion: String(calls.length) } }) : Promise.reject(err(a));
  };
  const events = {
    create: (obj: ApiObject) => answer('create', obj),
    patch: (name: string, _t: string, p: Record<string, unknown>) => answer(`patch ${String(p['count'])}`, { metadata: { name }, ...p }),
  };
  return { client: { rest: { resource: () => events } } as unknown as ApiClient, calls };
}

async function run(answers: Answer[], emit: (e: (reason: string, message?: string) => void) => void, o: { tries?: number; expectCalls: number }): Promise<{ calls: string[]; records: LogRecord[] }> {
  const { client, calls } = stub(answers);
  const records: LogRecord[] = [];
  const rec = createEventRecorder({ client, component: 'agent', host: 'n', log: testLogger(records), retry: { tries: o.tries ?? 12, intervalMs: 1 }, random: () => 0 });
  const ac = new AbortController();
  const done = rec.run(ac.signal);
  emit((reason, message = 'm') => rec.event(podRef({ namespace: 'ns', name: 'p', uid: 'u' }), 'Normal', reason, message));
  for (let i = 0; i < 500 && calls.length < o.expectCalls; i++) await new Promise((r) => setTimeout(r, 2));
  // Let a wrong extra call show up.
  await new Promise((r) => setTimeout(r, 20));
  ac.abort();
  await done;
  rec.event(podRef({ namespace: 'ns', name: 'p', uid: 'u' }), 'Normal', 'After', 'stop');
  return { calls, records };
}

const warnings = (r: LogRecord[]): string[] => r.filter((x) => x.level === 'warn' || x.level === 'error').map((x) => x.msg);

describe('event recorder writes', () => {
  it.each<[string, Answer[], (e: (reason: string, message?: string) => void) => void, number, string[], string[]]>([
    ['created, then patched', [], (e) => (e('A'), e('A')), 2, ['create', 'patch 2'], []],
    ['a rejection is final, logged once for two events', ['invalid', 'invalid'], (e) => (e('A'), e('B')), 2, ['create', 'create'], ['Server rejected event (will not retry)']],
    ['AlreadyExists is dropped quietly', ['alreadyExists'], (e) => e('A'), 1, ['create'], []],
    ['a repeat the server lost is created again', ['ok', 'notFound'], (e) => (e('A'), e('A')), 3, ['create', 'patch 2', 'create'], []],
    ['a connection failure is retried until it works', ['conn', 'conn'], (e) => e('A'), 3, ['create', 'create', 'create'], ['Unable to write event (may retry after sleeping)']],
  ])('%s', async (_n, answers, emit, expectCalls, calls, warned) => {
    const r = await run(answers, emit, { expectCalls });
    expect(r.calls).toEqual(calls);
    expect(warnings(r.records)).toEqual(warned);
  });

  it('gives up after the bounded tries', async () => {
    const r = await run(['conn', 'conn', 'conn', 'conn'], (e) => e('A'), { tries: 3, expectCalls: 3 });
    expect(r.calls).toEqual(['create', 'create', 'create']);
    expect(warnings(r.records)).toEqual(['Unable to write event (may retry after sleeping)', 'Unable to write event (retry limit exceeded)']);
  });

  it('the spam filter lets 25 events of one object through', async () => {
    const r = await run([], (e) => {
      for (let i = 0; i < 30; i++) e(`R${i}`, `m${i % 5}`);
    }, { expectCalls: 25 });
    expect(r.calls).toHaveLength(25);
  });
});
