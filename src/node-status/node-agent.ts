// The agent's node in API-server mode (issue 19 items 1–3): registration, the
// status loop and the lease, as one Component.
//
// Timeline of run(signal): "Starting" is recorded and the component is ready
// at once (nothing waits on the API server: pods run meanwhile). Then it
// registers — create the Node, on 409 GET and reconcile it (registration.ts)
// — or, with --register-node=false, waits for someone else's Node; tried
// after 100 ms, doubling to 7 s, until it works or `signal` aborts.
// `registered()` resolves then. From there the lease heartbeat runs
// (NodeLeaseController, the Node as owner) and the status is updated at once
// and every --node-status-update-frequency: sent when it changed, else every
// nodeStatusReportFrequency; an update with nothing to say, judged against the
// node the server last returned, sends no request (after a failure the next
// update reads the node again). A failing API server is logged once per problem
// (and once when it recovers); nothing here throws to the owner. On abort the
// loop and the heartbeat stop and run() settles; no timer is left.
import { isAlreadyExists } from '../api/errors.js';
import { NODE_LEASE_NAMESPACE, NodeLeaseController, patchNodeStatus, updateNodeStatus } from '../client/node/index.js';
import { RESOURCES } from '../client/rest/resources.js';
import type { ApiObject, ClientLog, ResourceClient } from '../client/types.js';
import { uidOf } from '../client/meta.js';
import { abortableSleep } from '../lifecycle/abort.js';
import { goArch, goOs } from '../node/host-info.js';
import { defineComponent } from '../lifecycle/component.js';
import { readHostFacts, readRuntimeFacts, runtimeNotReady, statusFacts, type HostFacts } from './facts.js';
import { initialNode, LABEL_ARCH, LABEL_OS, reconcileExistingNode, type NodeObject } from './registration.js';
import { buildNodeStatus, nodeStatusChanged } from './status.js';
import { ProblemLog, repeatQuietLog } from './problem-log.js';
import type { NodeAgent, NodeAgentOptions, NodeRef } from './types.js';

/** The kubelet's registerWithAPIServer back-off. */
export const REGISTER_BACKOFF = { initialMs: 100, maxMs: 7_000 } as const;

/** One update's facts, applied over the node the server holds at time `at`. */
type StatusBuilder = (current: Record<string, unknown>, at: number) => { status: Record<string, unknown>; events: Array<{ reason: string }> };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function createNodeAgent(o: NodeAgentOptions): NodeAgent {
  const { config: cfg, flags } = o.resolved;
  const name = o.nodeName;
  const hostname = o.hostname ?? name;
  const nodes: ResourceClient = o.client.rest.resource(RESOURCES.nodes);
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? abortableSleep;
  const readHost = o.host ?? ((): Promise<HostFacts> => readHostFacts(flags.rootDirectory));
  const updateMs = o.timing?.statusUpdateMs ?? cfg.nodeStatusUpdateFrequency;
  const reportMs = o.timing?.statusReportMs ?? cfg.nodeStatusReportFrequency;
  const backoff = o.timing?.registerBackoff ?? REGISTER_BACKOFF;
  const problems = new ProblemLog(o.log, { node: name });
  // updateNodeStatus logs each failed try; the problem log reports the cycle once.
  const quiet: ClientLog = { info: (m, f) => o.log.v?.(2)?.info(m, f), warn: (m, f) => o.log.warn(m, f), error: (m, f) => o.log.v?.(2)?.info(m, f) };
  const desiredNode = (): NodeObject =>
    initialNode({
      nodeName: name,
      hostname,
      os: o.os ?? goOs(),
      arch: o.arch ?? goArch(),
      nodeLabels: flags.nodeLabels,
      registerWithTaints: cfg.registerWithTaints,
      registerSchedulable: flags.registerSchedulable,
      providerID: cfg.providerID,
      controllerAttachDetach: cfg.enableControllerAttachDetach,
      externalCloudProvider: flags.cloudProvider === 'external',
      nodeIP: flags.nodeIP,
    });

  let resolveRegistered!: (ref: NodeRef) => void;
  const registered = new Promise<NodeRef>((resolve) => (resolveRegistered = resolve));
  let lastReport = Number.NEGATIVE_INFINITY;
  /** The node as the server last returned it (create, GET or patch answer); undefined after a failure. */
  let lastNode: ApiObject | undefined;

  const record = (reason: string, message: string): void => o.events?.event({ kind: 'Node', name, uid: name }, 'Normal', reason, message);
  const recordConditions = (events: ReadonlyArray<{ reason: string }>): void => {
    for (const e of events) record(e.reason, `Node ${name} status is now: ${e.reason}`);
  };

  /** Builds the node's status over `current` from facts gathered now. */
  async function gather(signal: AbortSignal): Promise<StatusBuilder> {
    const [host, rt] = await Promise.all([readHost(), readRuntimeFacts(o.runtime, signal)]);
    if (rt.problem !== undefined) problems.fail('runtime', 'Unable to read the runtime version or images for the node status', rt.problem);
    else problems.ok('runtime', 'Read the runtime version and images for the node status again');
    const notReady = runtimeNotReady(rt.conditions, o.health?.());
    const { facts, addressProblem } = statusFacts(host, rt, { resolved: o.resolved, hostname, version: o.version, notReady, pressure: o.pressure?.() ?? { memory: false, disk: false, pid: false } });
    if (addressProblem !== undefined) problems.fail('addresses', 'Failed to set the node addresses', addressProblem);
    else problems.ok('addresses', 'Node addresses set again');
    return (current, at) => buildNodeStatus(current['status'], facts, rfc3339(at));
  }

  async function tryRegister(signal: AbortSignal): Promise<NodeRef | undefined> {
    const desired = desiredNode();
    try {
      const build = await gather(signal);
      const at = now();
      const { status, events } = build({}, at);
      const created = await nodes.create({ ...desired, status }, { signal });
      lastReport = at;
      lastNode = created;
      recordConditions(events);
      o.log.info('Successfully registered node', { node: name });
      return { name, uid: uidOf(created) ?? '' };
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (!isAlreadyExists(err)) {
        problems.fail('register', 'Unable to register node with API server', err);
        return undefined;
      }
    }
    try {
      const existing = await nodes.get(name, { signal });
      const { node, changes } = reconcileExistingNode(desired, existing);
      if (changes.length > 0) {
        await patchNodeStatus(nodes, existing, node as ApiObject, signal);
        o.log.info('Reconciled the existing node with the agent\'s labels and annotations', { node: name, changes });
      }
      o.log.info('Node was previously registered', { node: name });
      return { name, uid: uidOf(existing) ?? '' };
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      problems.fail('register', 'Unable to reconcile the previously registered node', err);
      return undefined;
    }
  }

  async function findExisting(signal: AbortSignal): Promise<NodeRef | undefined> {
    try {
      const existing = await nodes.get(name, { signal });
      return { name, uid: uidOf(existing) ?? '' };
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      problems.fail('register', 'Waiting for the node to be registered by someone else (--register-node=false)', err);
      return undefined;
    }
  }

  async function register(signal: AbortSignal): Promise<NodeRef> {
    let step: number = backoff.initialMs;
    for (;;) {
      await sleep(step, signal);
      step = Math.min(step * 2, backoff.maxMs);
      const ref = cfg.registerNode ? await tryRegister(signal) : await findExisting(signal);
      if (ref !== undefined) {
        problems.ok('register', 'Node registration done');
        return ref;
      }
    }
  }

  /**
   * The node with the agent's status over `current`, or undefined when there
   * is nothing to say: status unchanged (heartbeats aside), os/arch labels in
   * place, and the last report younger than nodeStatusReportFrequency.
   */
  function nextNode(current: Record<string, unknown>, build: StatusBuilder, at: number): { node: Record<string, unknown>; events: Array<{ reason: string }> } | undefined {
    const built = build(current, at);
    const meta = isRecord(current['metadata']) ? current['metadata'] : {};
    const labels = isRecord(meta['labels']) ? meta['labels'] : {};
    const want = desiredNode().metadata.labels;
    const labelsMissing = labels[LABEL_OS] !== want[LABEL_OS] || labels[LABEL_ARCH] !== want[LABEL_ARCH];
    if (!labelsMissing && !nodeStatusChanged(current['status'], built.status) && at < lastReport + reportMs) return undefined;
    const nextMeta = labelsMissing ? { ...meta, labels: { ...labels, [LABEL_OS]: want[LABEL_OS], [LABEL_ARCH]: want[LABEL_ARCH] } } : meta;
    return { node: { ...current, metadata: nextMeta, status: built.status }, events: built.events };
  }

  async function updateStatus(signal: AbortSignal): Promise<void> {
    let events: Array<{ reason: string }> = [];
    try {
      const build = await gather(signal);
      const at = now();
      // Nothing to say against the node the server last returned: no request at
      // all (the kubelet GETs every time; skipping it keeps an idle node at the
      // lease's 6 requests a minute plus a report every 5 minutes).
      if (lastNode !== undefined && nextNode(lastNode, build, at) === undefined) {
        o.onStatusUpdate?.('unchanged');
        return;
      }
      const res = await updateNodeStatus(
        nodes,
        name,
        (current) => {
          const next = nextNode(current, build, at);
          events = next?.events ?? [];
          return next?.node as ApiObject | undefined;
        },
        { log: quiet, signal },
      );
      lastNode = res.object;
      if (res.outcome !== 'unchanged') lastReport = at;
      if (res.outcome === 'patched') recordConditions(events);
      problems.ok('status', 'Node status updated again');
      o.onStatusUpdate?.(res.outcome === 'patched' ? 'patched' : 'unchanged');
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      lastNode = undefined;
      problems.fail('status', 'Unable to update node status', err);
      o.onStatusUpdate?.('failed');
    }
  }

  const component = defineComponent('node-status', async (signal, markReady) => {
    record('Starting', 'Starting agent.');
    markReady();
    let heartbeat: Promise<void> | undefined;
    try {
      const ref = await register(signal);
      resolveRegistered(ref);
      const lease = new NodeLeaseController({
        leases: o.client.rest.resource(RESOURCES.leases, NODE_LEASE_NAMESPACE),
        nodes,
        nodeName: name,
        leaseDurationSeconds: o.timing?.leaseDurationSeconds ?? cfg.nodeLeaseDurationSeconds,
        log: repeatQuietLog(o.log),
      });
      heartbeat = lease.run(signal).catch((err: unknown) => {
        if (!signal.aborted) o.log.error('Node lease heartbeat stopped', { node: name, error: err instanceof Error ? err.message : String(err) });
      });
      for (;;) {
        await updateStatus(signal);
        await sleep(updateMs, signal);
      }
    } catch (err) {
      if (!signal.aborted) throw err;
    } finally {
      await heartbeat;
    }
  });

  return { ...component, registered: () => registered };
}
