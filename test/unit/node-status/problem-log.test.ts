import { describe, expect, it } from 'vitest';
import { ProblemLog, repeatQuietLog } from '../../../src/node-status/problem-log.js';
import { recordingLog } from '../../integration/node-status/helpers.js';

describe('ProblemLog', () => {
  it('logs a problem when it starts or changes, and once when it clears', () => {
    const log = recordingLog();
    const p = new ProblemLog(log, { node: 'n1' });
    p.fail('status', 'Unable to update node status', new Error('connection refused'));
    p.fail('status', 'Unable to update node status', new Error('connection refused'));
    p.fail('status', 'Unable to update node status', new Error('503'));
    p.ok('status', 'Node status updated again');
    p.ok('status', 'Node status updated again');
    expect(log.lines).toEqual([
      'error Unable to update node status {"node":"n1","error":"connection refused"}',
      'error Unable to update node status {"node":"n1","error":"503"}',
      'info Node status updated again {"node":"n1"}',
    ]);
    expect(p.failing('status')).toBe(false);
  });
});

describe('repeatQuietLog', () => {
  it('writes an error again only when its text changes', () => {
    const log = recordingLog();
    const q = repeatQuietLog(log);
    q.error('failed to update lease', { error: 'refused' });
    q.error('failed to update lease', { error: 'refused' });
    q.error('failed to ensure lease exists, will retry', { error: 'refused' });
    q.error('failed to update lease', { error: 'timeout' });
    expect(log.count(/^error/)).toBe(3);
  });
});
