// The node's four conditions as the kubelet's setters write them
// (nodestatus MemoryPressureCondition, DiskPressureCondition,
// PIDPressureCondition, ReadyCondition), renamed: reasons Agent…, messages
// "agent …". Pure: the conditions the server holds and this update's inputs
// in, the conditions to report and the node events to record out. A
// condition's lastTransitionTime moves only when its status changes; its
// lastHeartbeatTime is every update's time. Conditions other writers own
// (NetworkUnavailable) are kept as they are.
import { compareStrings } from '../util/compare.js';

export interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastHeartbeatTime: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** A node event the kubelet records with the condition (reason; the message is "Node <name> status is now: <reason>"). */
export interface ConditionEvent {
  readonly type: 'Normal';
  readonly reason: string;
}

export interface ConditionInputs {
  /** Why the node is not ready (runtime down, PLEG unhealthy, missing capacity); empty: ready. */
  readonly notReady: readonly string[];
  readonly memoryPressure: boolean;
  readonly diskPressure: boolean;
  readonly pidPressure: boolean;
}

interface Spec {
  readonly type: string;
  readonly on: (i: ConditionInputs) => boolean;
  /** [status, reason, message, event] when the test holds and when it does not. */
  readonly yes: (i: ConditionInputs) => readonly [NodeCondition['status'], string, string, string];
  readonly no: readonly [NodeCondition['status'], string, string, string];
}

/** Upstream's errors.NewAggregate(...).Error(): one message alone, several in brackets. */
export const aggregate = (msgs: readonly string[]): string => (msgs.length === 1 ? (msgs[0] ?? '') : `[${msgs.join(', ')}]`);

/** In the kubelet's order: a node's conditions are appended in this order when first set. */
const SPECS: readonly Spec[] = [
  {
    type: 'MemoryPressure',
    on: (i) => i.memoryPressure,
    yes: () => ['True', 'AgentHasInsufficientMemory', 'agent has insufficient memory available', 'NodeHasInsufficientMemory'],
    no: ['False', 'AgentHasSufficientMemory', 'agent has sufficient memory available', 'NodeHasSufficientMemory'],
  },
  {
    type: 'DiskPressure',
    on: (i) => i.diskPressure,
    yes: () => ['True', 'AgentHasDiskPressure', 'agent has disk pressure', 'NodeHasDiskPressure'],
    no: ['False', 'AgentHasNoDiskPressure', 'agent has no disk pressure', 'NodeHasNoDiskPressure'],
  },
  {
    type: 'PIDPressure',
    on: (i) => i.pidPressure,
    yes: () => ['True', 'AgentHasInsufficientPID', 'agent has insufficient PID available', 'NodeHasInsufficientPID'],
    no: ['False', 'AgentHasSufficientPID', 'agent has sufficient PID available', 'NodeHasSufficientPID'],
  },
  {
    type: 'Ready',
    on: (i) => i.notReady.length > 0,
    yes: (i) => ['False', 'AgentNotReady', aggregate(i.notReady), 'NodeNotReady'],
    no: ['True', 'AgentReady', 'agent is posting ready status', 'NodeReady'],
  },
];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const s = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * The conditions to report at `now` (RFC 3339, seconds), given those the
 * server holds (`existing`, status.conditions as read), and the events to
 * record: one per condition added or whose status changed.
 */
export function nodeConditions(existing: unknown, inputs: ConditionInputs, now: string): { conditions: NodeCondition[]; events: ConditionEvent[] } {
  const list: unknown[] = Array.isArray(existing) ? existing : [];
  const conditions: NodeCondition[] = [];
  const events: ConditionEvent[] = [];
  const owned = new Map<string, NodeCondition>();
  for (const spec of SPECS) {
    const [status, reason, message, event] = spec.on(inputs) ? spec.yes(inputs) : spec.no;
    const old = list.find((c): c is Record<string, unknown> => isRecord(c) && c['type'] === spec.type);
    const changed = old === undefined || old['status'] !== status;
    const lastTransitionTime = changed ? now : s(old['lastTransitionTime']) || now;
    owned.set(spec.type, { type: spec.type, status, lastHeartbeatTime: now, lastTransitionTime, reason, message });
    if (changed) events.push({ type: 'Normal', reason: event });
  }
  for (const c of list) {
    if (!isRecord(c)) continue;
    const mine = owned.get(s(c['type']));
    if (mine !== undefined) {
      conditions.push(mine);
      owned.delete(mine.type);
    } else conditions.push(c as unknown as NodeCondition);
  }
  conditions.push(...owned.values());
  return { conditions, events };
}

/** Conditions compared without their heartbeat times, in type order (the kubelet's nodeConditionsHaveChanged). */
export function conditionsForComparison(conditions: unknown): unknown[] {
  const list: unknown[] = Array.isArray(conditions) ? conditions : [];
  return list
    .map((c) => {
      if (!isRecord(c)) return c;
      const { lastHeartbeatTime: _hb, ...rest } = c;
      return rest;
    })
    .sort((a, b) => (isRecord(a) && isRecord(b) ? compareStrings(s(a['type']), s(b['type'])) : 0));
}
