// The files of configMap and secret volumes and of the same sources inside
// a projected volume (the kubelet's configmap/secret MakePayload): every key
// with the default mode, or the listed items each at its path with its own
// mode; a listed key the object lacks fails the volume unless it is optional.
// Pure; the plugins (api-volumes.ts, projected.ts) do the reads and writes.
import type { ConfigMapData, SecretData } from '../api-objects/index.js';
import type { KeyToPath } from '../pod-model/pod-types.js';
import type { FileProjection } from './atomic-writer.js';
import { fsGroupMode } from './ownership.js';
import { VolumeSetUpError } from './types.js';

export type KeyedKind = 'configmap' | 'secret';

/** Text and byte keys of one object (a ConfigMap's data then binaryData; a Secret's data). */
export function keysOf(kind: KeyedKind, obj: ConfigMapData | SecretData): Map<string, string | Uint8Array> {
  const out = new Map<string, string | Uint8Array>();
  if (kind === 'configmap') {
    const cm = obj as ConfigMapData;
    for (const [k, v] of Object.entries(cm.data)) out.set(k, v);
    for (const [k, v] of Object.entries(cm.binaryData)) if (!out.has(k)) out.set(k, v);
  } else for (const [k, v] of Object.entries((obj as SecretData).data)) out.set(k, v);
  return out;
}

/** The mode a file gets: its own, else the default; with fsGroup set, group read as SetVolumeOwnership gives it (so a resync rewrites nothing). */
export const fileMode = (mode: number, fsGroup: number | undefined): number => (fsGroup === undefined ? mode : fsGroupMode(mode, false, true));

/**
 * The files of one object's keys. `keys` undefined: the object does not exist
 * (only reached for an optional source, which then gives no files). Throws
 * VolumeSetUpError with the kubelet's text for a listed key that is missing.
 */
export function keyedPayload(kind: KeyedKind, keys: ReadonlyMap<string, string | Uint8Array> | undefined, src: { items?: readonly KeyToPath[]; optional?: boolean }, defaultMode: number, fsGroup: number | undefined): Map<string, FileProjection> {
  const out = new Map<string, FileProjection>();
  const have = keys ?? new Map<string, string | Uint8Array>();
  const items = src.items ?? [];
  if (items.length === 0) {
    for (const [k, content] of have) out.set(k, { content, mode: fileMode(defaultMode, fsGroup) });
    return out;
  }
  for (const item of items) {
    const content = have.get(item.key);
    if (content === undefined) {
      if (src.optional === true) continue;
      throw new VolumeSetUpError(`${kind} references non-existent ${kind === 'configmap' ? 'config' : 'secret'} key: ${item.key}`);
    }
    out.set(item.path, { content, mode: fileMode(item.mode ?? defaultMode, fsGroup) });
  }
  return out;
}

/** The API's NotFound text the kubelet's object managers give (`configmap "x" not found`). */
export const notFoundMessage = (kind: KeyedKind, name: string): string => `${kind} "${name}" not found`;
