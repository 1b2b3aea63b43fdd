// The node agent's contract (pinned for issue 19: the integrator, the mirror
// pods and the events build on `registered()`), its options and the
// structural event recorder it may be given.
import type { ApiClient } from '../client/index.js';
import type { ResolvedConfig } from '../config/resolve.js';
import type { Component } from '../lifecycle/component.js';
import type { HostFacts, NodePressure, NodeRuntime } from './facts.js';

export interface NodeRef {
  readonly name: string;
  readonly uid: string;
}

export interface NodeAgent extends Component {
  /** Resolves with the Node as registered (uid known); never rejects; pending while unreachable (and forever when stopped first). */
  registered(): Promise<NodeRef>;
}

/** The part of src/events' EventRecorder the node agent uses (structural: src/events is not imported). Never blocks, never throws. */
export interface NodeEventRecorder {
  event(obj: { kind: 'Node'; name: string; uid: string }, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

/** The agent logger's calls used here (an AgentLogger is one). */
export interface NodeAgentLog {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  v?(level: number): { info(msg: string, fields?: Record<string, unknown>): void } | undefined;
}

export interface NodeAgentOptions {
  readonly client: Pick<ApiClient, 'rest'>;
  /** Read: registerNode, registerWithTaints, providerID, enableControllerAttachDetach, nodeStatus*, nodeLease*, port, maxPods/podsPerCore, the reservations, evictionHard, nodeStatusMaxImages; flags nodeLabels, registerSchedulable, nodeIP, rootDirectory, experimentalAllocatableIgnoreEviction. */
  readonly resolved: ResolvedConfig;
  /** src/node nodeName(flags.hostnameOverride). */
  readonly nodeName: string;
  /** The hostname label and Hostname address; default nodeName (the kubelet's hostname is the override or the machine's, lower-cased: the same value without a cloud provider). */
  readonly hostname?: string;
  /** The agent's version (nodeInfo.kubeletVersion). */
  readonly version: string;
  /** Version and images for nodeInfo and status.images, and its status (RuntimeReady/NetworkReady, or the call failing) for Ready; absent: none of these is reported. */
  readonly runtime?: NodeRuntime;
  /** Why the node is not ready besides the runtime's own conditions (the PLEG: "PLEG is not healthy: <reason>"); undefined when healthy. Called once per status update; must not block. */
  readonly health?: () => string | undefined;
  /** The eviction manager's view; absent: no pressure. Called once per status update. */
  readonly pressure?: () => NodePressure;
  readonly events?: NodeEventRecorder;
  readonly log: NodeAgentLog;
  /** Told the outcome of each status update (`unchanged`: nothing sent); for metrics and tests. Must not block or throw. */
  readonly onStatusUpdate?: (outcome: 'patched' | 'unchanged' | 'failed') => void;
  /** Test seams: the node's OS/arch labels (default Go's spelling of this host's), host facts, clock, abortable wait, intervals. */
  readonly os?: string;
  readonly arch?: string;
  readonly host?: () => Promise<HostFacts>;
  readonly now?: () => number;
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly timing?: {
    /** Default --node-status-update-frequency. */
    readonly statusUpdateMs?: number;
    /** Default nodeStatusReportFrequency. */
    readonly statusReportMs?: number;
    /** Default nodeLeaseDurationSeconds (renewed every quarter). */
    readonly leaseDurationSeconds?: number;
    /** Default REGISTER_BACKOFF (100 ms doubling to 7 s). */
    readonly registerBackoff?: { readonly initialMs: number; readonly maxMs: number };
  };
}
