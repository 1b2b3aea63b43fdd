// The Node the agent registers and how it reconciles one that already exists
// (the kubelet's initialNode, reconcileCMADAnnotationWithExistingNode and
// updateDefaultLabels; kubelet_node_status.go). Pure, table-tested. The
// renamed well-known keys: platform.io/{hostname,os,arch} and the beta
// os/arch labels the kubelet 1.28 still sets, the unschedulable taint, the
// controller-managed attach/detach annotation.
import type { Taint } from '../config/values/taints.js';

export const LABEL_HOSTNAME = 'platform.io/hostname';
export const LABEL_OS = 'platform.io/os';
export const LABEL_ARCH = 'platform.io/arch';
export const LABEL_BETA_OS = 'beta.platform.io/os';
export const LABEL_BETA_ARCH = 'beta.platform.io/arch';
export const ANNOTATION_CONTROLLER_MANAGED_ATTACH_DETACH = 'volumes.platform.io/controller-managed-attach-detach';
export const TAINT_UNSCHEDULABLE = 'node.platform.io/unschedulable';
/** Set at registration with --cloud-provider=external, until the cloud controller initialises the node. */
export const TAINT_EXTERNAL_CLOUD_PROVIDER = 'node.cloudprovider.platform.io/uninitialized';
/** With --cloud-provider=external, the --node-ip given, for the cloud controller. */
export const ANNOTATION_PROVIDED_NODE_IP = 'alpha.platform.io/provided-node-ip';

/**
 * The labels the agent owns on an existing Node (upstream's kubeletLabels):
 * when the desired node has one its value wins; one it does not set is left
 * as others wrote it.
 */
export const DEFAULT_LABELS: readonly string[] = [
  LABEL_HOSTNAME,
  'topology.platform.io/zone',
  'topology.platform.io/region',
  'failure-domain.beta.platform.io/zone',
  'failure-domain.beta.platform.io/region',
  'node.platform.io/instance-type',
  'beta.platform.io/instance-type',
  LABEL_OS,
  LABEL_ARCH,
  'node.platform.io/windows-build',
  LABEL_BETA_OS,
  LABEL_BETA_ARCH,
];

export interface RegistrationInput {
  readonly nodeName: string;
  /** The node's hostname (--hostname-override or the machine's, lower-cased): the hostname label's value. */
  readonly hostname: string;
  readonly os: string;
  readonly arch: string;
  /** --node-labels (checked against the reserved-prefix rule at start). */
  readonly nodeLabels: Readonly<Record<string, string>>;
  readonly registerWithTaints: readonly Taint[];
  readonly registerSchedulable: boolean;
  /** --provider-id ('' = none). */
  readonly providerID: string;
  /** enableControllerAttachDetach. */
  readonly controllerAttachDetach: boolean;
  /** --cloud-provider=external. */
  readonly externalCloudProvider?: boolean;
  /** --node-ip as given ('' = none); annotated for an external cloud provider. */
  readonly nodeIP?: string;
}

export interface NodeObject {
  apiVersion: 'v1';
  kind: 'Node';
  metadata: { name: string; labels: Record<string, string>; annotations?: Record<string, string> };
  spec: { unschedulable?: boolean; taints?: Array<{ key: string; value?: string; effect: string }>; providerID?: string };
  status?: Record<string, unknown>;
}

/** The Node to create, without status (the status loop fills it in). */
export function initialNode(i: RegistrationInput): NodeObject {
  const labels: Record<string, string> = {
    [LABEL_HOSTNAME]: i.hostname,
    [LABEL_OS]: i.os,
    [LABEL_ARCH]: i.arch,
    [LABEL_BETA_OS]: i.os,
    [LABEL_BETA_ARCH]: i.arch,
  };
  for (const [k, v] of Object.entries(i.nodeLabels)) labels[k] = v;
  const taints = i.registerWithTaints.map((t) => ({ key: t.key, ...(t.value === undefined || t.value === '' ? {} : { value: t.value }), effect: t.effect }));
  if (!i.registerSchedulable && !taints.some((t) => t.key === TAINT_UNSCHEDULABLE && t.effect === 'NoSchedule')) taints.push({ key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule' });
  if (i.externalCloudProvider === true) taints.push({ key: TAINT_EXTERNAL_CLOUD_PROVIDER, value: 'true', effect: 'NoSchedule' });
  const spec: NodeObject['spec'] = {};
  if (!i.registerSchedulable) spec.unschedulable = true;
  if (taints.length > 0) spec.taints = taints;
  if (i.providerID !== '') spec.providerID = i.providerID;
  const metadata: NodeObject['metadata'] = { name: i.nodeName, labels };
  const annotations: Record<string, string> = {};
  if (i.controllerAttachDetach) annotations[ANNOTATION_CONTROLLER_MANAGED_ATTACH_DETACH] = 'true';
  if (i.externalCloudProvider === true && (i.nodeIP ?? '') !== '') annotations[ANNOTATION_PROVIDED_NODE_IP] = i.nodeIP ?? '';
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  return { apiVersion: 'v1', kind: 'Node', metadata, spec };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strMap = (v: unknown): Record<string, string> => (isRecord(v) ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string')) : {});

export interface ReconcileResult {
  /** The existing node with the agent's labels and annotations reconciled (a copy). */
  readonly node: Record<string, unknown>;
  /** What changed, for the log; empty: nothing to send. */
  readonly changes: string[];
}

/**
 * An existing Node (the 409 path) brought in line with the one the agent
 * would create: the controller-managed attach/detach annotation set or
 * removed, the default labels it sets put back to its values. --node-labels,
 * taints, provider ID and schedulability are registration-only, as upstream.
 */
export function reconcileExistingNode(desired: NodeObject, existing: Record<string, unknown>): ReconcileResult {
  const meta = isRecord(existing['metadata']) ? existing['metadata'] : {};
  const labels = strMap(meta['labels']);
  const annotations = strMap(meta['annotations']);
  const changes: string[] = [];
  const want = desired.metadata.annotations?.[ANNOTATION_CONTROLLER_MANAGED_ATTACH_DETACH] === 'true';
  const has = annotations[ANNOTATION_CONTROLLER_MANAGED_ATTACH_DETACH] === 'true';
  if (want && !has) {
    annotations[ANNOTATION_CONTROLLER_MANAGED_ATTACH_DETACH] = 'true';
    changes.push(`annotation ${ANNOTATION_CONTROLLER_MANAGED_ATTACH_DETACH} set`);
  } else if (!want && ANNOTATION_CONTROLLER_MANAGED_ATTACH_DETACH in annotations) {
    delete annotations[ANNOTATION_CONTROLLER_MANAGED_ATTACH_DETACH];
    changes.push(`annotation ${ANNOTATION_CONTROLLER_MANAGED_ATTACH_DETACH} removed`);
  }
  for (const key of DEFAULT_LABELS) {
    const value = desired.metadata.labels[key];
    if (value !== undefined && labels[key] !== value) {
      changes.push(`label ${key}=${value}${key in labels ? ` (was ${labels[key] ?? ''})` : ''}`);
      labels[key] = value;
    }
  }
  const nextMeta: Record<string, unknown> = { ...meta, labels };
  if (Object.keys(annotations).length > 0 || 'annotations' in meta) nextMeta['annotations'] = annotations;
  return { node: { ...existing, metadata: nextMeta }, changes };
}
