// The two object edits server-side apply makes: merging an applied
// configuration into the live object (upstream's structured merge) and
// removing the fields an applier stopped applying. Both take JSON-form
// objects, return new objects and never modify their inputs.
import { type FieldPath, FieldSet, parseElement } from './fieldpath.js';
import { type JsonObject, type ListType, type ListTypes, isObject, listElements } from './walk.js';

interface At {
  names: readonly string[];
  path: FieldPath;
}

const clone = <T>(v: T): T => structuredClone(v);

/**
 * The order of a merged granular list, as upstream keeps it: items only the
 * live list has stay where they were, items of the configuration come in
 * its order, and an item both have is placed when the configuration reaches
 * it. Each turn consumes at least one item, so the loop ends.
 */
export function mergedOrder(live: readonly string[], config: readonly string[]): string[] {
  const inConfig = new Set(config);
  const inLive = new Set(live);
  const shared = config.filter((k) => inLive.has(k));
  let nextShared = 0;
  const out: string[] = [];
  let l = 0;
  let r = 0;
  while (l < live.length || r < config.length) {
    const lk = live[l];
    const rk = config[r];
    if (lk !== undefined && rk !== undefined) {
      if (lk === rk) {
        out.push(lk);
        l++;
        r++;
        nextShared++;
        continue;
      }
      if (inConfig.has(lk) && shared[nextShared] !== lk) {
        l++;
        continue;
      }
    }
    if (lk !== undefined && !inConfig.has(lk)) {
      out.push(lk);
      l++;
      continue;
    }
    if (rk !== undefined) {
      out.push(rk);
      r++;
      if (shared[nextShared] === rk) nextShared++;
      continue;
    }
    l++; // a shared live item already placed by the configuration
  }
  return out;
}

/** `config` merged into `live`: maps by key, granular lists by element, everything else replaced. Null clears a field. */
export function mergeObjects(live: JsonObject, config: JsonObject, listTypes: ListTypes): JsonObject {
  const merge = (l: unknown, r: unknown, at: At): unknown => {
    if (r === undefined) return clone(l);
    if (l === undefined || r === null) return clone(r);
    if (isObject(l) && isObject(r)) {
      const out: JsonObject = {};
      for (const k of new Set([...Object.keys(l), ...Object.keys(r)])) {
        const v = merge(l[k], r[k], { names: [...at.names, k], path: [...at.path, `f:${k}`] });
        if (v !== undefined && v !== null) out[k] = v;
      }
      return out;
    }
    if (Array.isArray(l) && Array.isArray(r)) {
      const lt = listTypes(at.names);
      if (lt.type === 'atomic' || (l.length === 0 && r.length === 0)) return clone(r);
      return mergeList(l, r, lt, at);
    }
    return clone(r);
  };
  const mergeList = (l: readonly unknown[], r: readonly unknown[], lt: ListType, at: At): unknown[] => {
    const le = new Map(listElements(l, lt, at.path, 'lenient').map((e) => [e.key, e.item]));
    const re = new Map(listElements(r, lt, at.path, 'strict').map((e) => [e.key, e.item]));
    return mergedOrder([...le.keys()], [...re.keys()]).map((k) => merge(le.get(k), re.get(k), { names: at.names, path: [...at.path, k] }));
  };
  const out = merge(live, config, { names: [], path: [] });
  return isObject(out) ? out : {};
}

/**
 * `obj` without the fields at `paths`. A map or list that loses its last
 * entry this way goes too (upstream leaves it null, which the typed object
 * drops); its parent stays, even if now empty.
 */
export function removePaths(obj: JsonObject, paths: FieldSet, listTypes: ListTypes): JsonObject {
  const out = clone(obj);
  for (const path of paths.paths()) removeOne(out, path, listTypes);
  return out;
}

function removeOne(root: JsonObject, path: FieldPath, listTypes: ListTypes): void {
  const names: string[] = [];
  let container: unknown = root;
  let parent: { holder: unknown; slot: string | number } | undefined;
  for (let i = 0; i < path.length; i++) {
    const e = parseElement(path[i]!);
    let slot: string | number | undefined;
    if (e.kind === 'field') {
      if (!isObject(container) || !Object.hasOwn(container, e.name)) return;
      slot = e.name;
      names.push(e.name);
    } else {
      if (!Array.isArray(container)) return;
      const list = container;
      const elems = listElements(list, listTypes(names), [], 'lenient');
      const found = elems.find((x) => x.key === path[i]);
      if (found === undefined) return;
      slot = list.indexOf(found.item);
    }
    if (i === path.length - 1) {
      if (typeof slot === 'string') delete (container as JsonObject)[slot];
      else (container as unknown[]).splice(slot, 1);
      const emptied = Array.isArray(container) ? container.length === 0 : Object.keys(container as JsonObject).length === 0;
      if (emptied && parent !== undefined) {
        if (typeof parent.slot === 'string') delete (parent.holder as JsonObject)[parent.slot];
        else (parent.holder as unknown[]).splice(parent.slot, 1);
      }
      return;
    }
    parent = { holder: container, slot };
    container = typeof slot === 'string' ? (container as JsonObject)[slot] : (container as unknown[])[slot];
  }
}
