// downwardAPI volumes: files holding facts of the pod (name, namespace, UID,
// labels, annotations, a container's resources), written with the atomic
// writer below `<root>/pods/<uid>/volumes/platform.io~downward-api/<name>`.
// Each sync sets the volume up again, so a label or annotation change in the
// manifest reaches the files; unchanged content is not rewritten. The content
// (`downwardApiPayload`, `formatMap`) is pure.
import { metadataField } from '../pod-model/field-path.js';
import type { Pod, Volume } from '../pod-model/pod-types.js';
import { parseQuantity } from '../config/values/quantity.js';
import { writeAtomically, type FileProjection } from './atomic-writer.js';
import { fsGroupMode, setVolumeOwnership } from './ownership.js';
import { DOWNWARD_API_PLUGIN } from './paths.js';
import { VolumeSetUpError, type NodeFacts, type VolumeContext, type VolumePlugin } from './types.js';

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const SHORT_ESCAPES: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '"': '\\"', '\\': '\\\\' };

/** A string quoted as Go's %q (strconv.Quote) quotes it. Pure. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const short = SHORT_ESCAPES[ch];
    const cp = ch.codePointAt(0)!;
    if (short !== undefined) out += short;
    else if (PRINTABLE.test(ch)) out += ch;
    else if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

/** Labels or annotations as the kubelet writes them (fieldpath.FormatMap): `key="value"` lines sorted by key, no final newline. Pure. */
export function formatMap(m: Readonly<Record<string, string>>): string {
  return Object.keys(m)
    .sort()
    .map((k) => `${k}=${goQuote(m[k]!)}`)
    .join('\n');
}

function fieldValue(pod: Pod, path: string): string {
  const own = metadataField(pod, path);
  if (own !== undefined) return own;
  switch (path) {
    case 'metadata.labels':
      return formatMap(pod.metadata.labels);
    case 'metadata.annotations':
      return formatMap(pod.metadata.annotations);
    default:
      throw new VolumeSetUpError(`unsupported fieldPath: ${path}`);
  }
}

/**
 * A container's resource as a downward API file holds it: the request, or the
 * limit (the node's allocatable amount when no limit is set, as the kubelet
 * merges them), divided by the divisor and rounded up. Pure.
 */
export function resourceValue(pod: Pod, ref: { containerName?: string; resource: string; divisor?: string }, node: NodeFacts): string {
  const c = [...(pod.spec.initContainers ?? []), ...pod.spec.containers].find((x) => x.name === ref.containerName);
  if (!c) throw new VolumeSetUpError(`resourceFieldRef: container "${ref.containerName ?? ''}" not found in pod`);
  const [kind, res] = ref.resource.split('.', 2) as [string, string];
  const text = (kind === 'limits' ? c.resources.limits : c.resources.requests)[res];
  const divisor = parseQuantity(ref.divisor ?? '1').value;
  let value: number;
  if (text !== undefined) value = parseQuantity(text).value;
  else if (kind !== 'limits') value = 0;
  else if (res === 'cpu') value = node.cpuMilli / 1000;
  else if (res === 'memory') value = node.memoryBytes;
  else if (res === 'ephemeral-storage') value = node.ephemeralStorageBytes;
  else value = 0;
  // CPU is divided in millicores (MilliValue), the rest in whole units, as the kubelet does.
  if (res === 'cpu') return String(Math.ceil(Math.round(value * 1000) / Math.round(divisor * 1000)));
  return String(Math.ceil(value / divisor));
}

/** The files of a downward API volume: path → content and mode (`fsGroup` set: with its group permissions). Pure. */
export function downwardApiPayload(pod: Pod, v: Volume, node: NodeFacts): Map<string, FileProjection> {
  const d = v.downwardAPI!;
  const fsGroup = pod.spec.securityContext?.fsGroup;
  const out = new Map<string, FileProjection>();
  for (const item of d.items ?? []) {
    const content = item.fieldRef ? fieldValue(pod, item.fieldRef.fieldPath) : resourceValue(pod, item.resourceFieldRef!, node);
    const mode = item.mode ?? d.defaultMode ?? 0o644;
    out.set(item.path, { content, mode: fsGroup === undefined ? mode : fsGroupMode(mode, false, true) });
  }
  return out;
}

export const downwardApiPlugin: VolumePlugin = {
  name: DOWNWARD_API_PLUGIN,
  canSupport: (v) => v.downwardAPI !== undefined,
  async setUp(ctx: VolumeContext): Promise<void> {
    const { pod, volume, dir, signal } = ctx;
    const payload = downwardApiPayload(pod, volume, ctx.node);
    try {
      const wrote = await writeAtomically(dir, payload);
      if (!wrote) return;
      const fsGroup = pod.spec.securityContext?.fsGroup;
      // A downward API volume is read-only to the pod: the group gets read permission.
      if (fsGroup !== undefined) await setVolumeOwnership(dir, fsGroup, true, signal);
      ctx.log.info('Wrote the files of a downward API volume', { volume: volume.name, path: dir, files: payload.size });
    } catch (e) {
      if (signal.aborted) throw e;
      throw new VolumeSetUpError((e as Error).message, { cause: e });
    }
  },
  // Files on the node's disk: removing the directory is all.
  async tearDown(): Promise<void> {},
};
