// A relist (or a streaming list's initial events) applied to the store as a
// diff, so handlers see each change once: objects the store lacks are adds,
// ones whose resourceVersion differs are updates, ones the list lacks are
// deletes carrying the store's last state. Pure: the reflector applies the
// deltas in order (adds and updates in list order, then deletes, as
// client-go's DeltaFIFO.Replace queues them).
import type { ApiObject } from '../types.js';
import { resourceVersionOf } from './store.js';

export type Delta =
  | { readonly type: 'add'; readonly key: string; readonly obj: ApiObject }
  | { readonly type: 'update'; readonly key: string; readonly old: ApiObject; readonly obj: ApiObject }
  | { readonly type: 'delete'; readonly key: string; readonly old: ApiObject };

/** What the store holds now, by key. */
export interface CurrentView {
  get(key: string): ApiObject | undefined;
  keys(): Iterable<string>;
}

/** `listed`: the new complete state as [key, object] pairs (keys unique). */
export function diffReplace(current: CurrentView, listed: Iterable<readonly [string, ApiObject]>): Delta[] {
  const out: Delta[] = [];
  const seen = new Set<string>();
  for (const [key, obj] of listed) {
    seen.add(key);
    const old = current.get(key);
    if (old === undefined) out.push({ type: 'add', key, obj });
    else if (resourceVersionOf(old) !== resourceVersionOf(obj)) out.push({ type: 'update', key, old, obj });
  }
  for (const key of current.keys()) {
    if (seen.has(key)) continue;
    const old = current.get(key);
    if (old !== undefined) out.push({ type: 'delete', key, old });
  }
  return out;
}
