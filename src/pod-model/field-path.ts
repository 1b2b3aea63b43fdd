// The pod's own metadata as the downward API names it (a fieldRef's
// fieldPath): shared by environment variables (pods/container-config.ts) and
// downwardAPI volumes (volumes/downward-api.ts), which each add the paths only
// they serve (the node and IPs for env; the whole label and annotation maps
// for files).
import type { Pod } from './pod-types.js';

const SUBSCRIPT = /^metadata\.(labels|annotations)\['(.+)'\]$/s;

/** The value of a `metadata.*` fieldPath (a missing label or annotation is ''); undefined for any other path. Pure. */
export function metadataField(pod: Pod, path: string): string | undefined {
  const sub = SUBSCRIPT.exec(path);
  if (sub) return (sub[1] === 'labels' ? pod.metadata.labels : pod.metadata.annotations)[sub[2]!] ?? '';
  switch (path) {
    case 'metadata.name':
      return pod.metadata.name;
    case 'metadata.namespace':
      return pod.metadata.namespace;
    case 'metadata.uid':
      return pod.metadata.uid;
    default:
      return undefined;
  }
}
