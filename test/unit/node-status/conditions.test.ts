import { describe, expect, it } from 'vitest';
import { aggregate, nodeConditions, type ConditionInputs } from '../../../src/node-status/conditions.js';

const fine: ConditionInputs = { notReady: [], memoryPressure: false, diskPressure: false, pidPressure: false };
const T0 = '2026-11-24T10:00:00Z';
const T1 = '2026-11-24T10:00:10Z';

describe('nodeConditions', () => {
  it('sets the four conditions in the kubelet order with the renamed reasons, each an event', () => {
    const { conditions, events } = nodeConditions(undefined, fine, T0);
    expect(conditions.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['MemoryPressure', 'False', 'AgentHasSufficientMemory', 'agent has sufficient memory available'],
      ['DiskPressure', 'False', 'AgentHasNoDiskPressure', 'agent has no disk pressure'],
      ['PIDPressure', 'False', 'AgentHasSufficientPID', 'agent has sufficient PID available'],
      ['Ready', 'True', 'AgentReady', 'agent is posting ready status'],
    ]);
    expect(conditions.every((c) => c.lastHeartbeatTime === T0 && c.lastTransitionTime === T0)).toBe(true);
    expect(events.map((e) => e.reason)).toEqual(['NodeHasSufficientMemory', 'NodeHasNoDiskPressure', 'NodeHasSufficientPID', 'NodeReady']);
  });

  it.each([
    ['unchanged: transition kept, heartbeat moves, no event', fine, [], []],
    ['runtime down: NotReady with the message', { ...fine, notReady: ['container runtime is down'] }, ['Ready'], ['NodeNotReady']],
    ['memory pressure', { ...fine, memoryPressure: true }, ['MemoryPressure'], ['NodeHasInsufficientMemory']],
    ['disk pressure', { ...fine, diskPressure: true }, ['DiskPressure'], ['NodeHasDiskPressure']],
    ['pid pressure', { ...fine, pidPressure: true }, ['PIDPressure'], ['NodeHasInsufficientPID']],
  ])('%s', (_name, inputs, moved, reasons) => {
    const before = nodeConditions(undefined, fine, T0).conditions;
    const { conditions, events } = nodeConditions(before, inputs, T1);
    expect(conditions.every((c) => c.lastHeartbeatTime === T1)).toBe(true);
    expect(conditions.filter((c) => c.lastTransitionTime === T1).map((c) => c.type)).toEqual(moved);
    expect(events.map((e) => e.reason)).toEqual(reasons);
  });

  it('NotReady reasons: one message alone, several aggregated', () => {
    const one = nodeConditions(undefined, { ...fine, notReady: ['PLEG is not healthy: pleg was last seen active 3m0s ago; threshold is 3m0s'] }, T0).conditions.find((c) => c.type === 'Ready');
    expect(one).toMatchObject({ status: 'False', reason: 'AgentNotReady', message: 'PLEG is not healthy: pleg was last seen active 3m0s ago; threshold is 3m0s' });
    expect(aggregate(['a', 'b'])).toBe('[a, b]');
  });

  it('keeps conditions other writers own, in place', () => {
    const other = { type: 'NetworkUnavailable', status: 'False', reason: 'RouteCreated', message: 'routes', lastHeartbeatTime: T0, lastTransitionTime: T0 };
    const { conditions } = nodeConditions([other, ...nodeConditions(undefined, fine, T0).conditions], fine, T1);
    expect(conditions[0]).toEqual(other);
    expect(conditions.map((c) => c.type)).toEqual(['NetworkUnavailable', 'MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready']);
  });
});
