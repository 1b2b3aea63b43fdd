import { describe, expect, it } from 'vitest';
import { formatWarning } from '../../../../src/api/warnings.js';
import { WarningLog } from '../../../../src/client/transport/warnings.js';
import { testLogger } from '../../../helpers/test-logger.js';

const REQ = { method: 'POST', path: '/api/v1/namespaces/a/pods' };

describe('WarningLog', () => {
  it('logs each distinct text once, whatever request carried it', () => {
    const log = testLogger();
    const w = new WarningLog(log);
    w.record(REQ, [formatWarning('unknown field "spec.foo"'), formatWarning('deprecated')]);
    w.record({ method: 'GET', path: '/x' }, formatWarning('unknown field "spec.foo"'));
    w.record(REQ, `${formatWarning('deprecated')}, ${formatWarning('third')}`);
    w.record(REQ, undefined);
    expect(log.records.map((r) => [r.level, r.msg, r.fields['request']])).toEqual([
      ['warn', 'Warning: unknown field "spec.foo"', 'POST /api/v1/namespaces/a/pods'],
      ['warn', 'Warning: deprecated', 'POST /api/v1/namespaces/a/pods'],
      ['warn', 'Warning: third', 'POST /api/v1/namespaces/a/pods'],
    ]);
  });

  it('a malformed header is logged once as such, not thrown', () => {
    const log = testLogger();
    const w = new WarningLog(log);
    w.record(REQ, 'garbage');
    w.record(REQ, 'garbage');
    expect(log.records).toHaveLength(1);
    expect(log.records[0]?.msg).toMatch(/invalid warning header/);
  });

  it('remembers a bounded number of texts, forgetting the oldest', () => {
    const log = testLogger();
    const w = new WarningLog(log, 3);
    for (const t of ['a', 'b', 'c', 'd', 'a', 'd']) w.record(REQ, formatWarning(t));
    // 'a' was forgotten when 'd' came, so it is logged again; 'd' is still remembered.
    expect(log.records.map((r) => r.msg)).toEqual(['Warning: a', 'Warning: b', 'Warning: c', 'Warning: d', 'Warning: a']);
  });
});
