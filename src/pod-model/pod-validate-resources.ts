// A container's resource requirements as the API server validates them
// (ValidateResourceRequirements): names, quantities, requests ≤ limits, the
// resources that may not be overcommitted, hugepages needing cpu or memory.
import type { ResourceRequirements } from './pod-types.js';
import { isQualifiedName } from '../config/values/names.js';
import { quantityValue, quote, short, type Report } from './pod-validate-util.js';

const STANDARD = new Set(['cpu', 'memory', 'ephemeral-storage']);
// kubernetes.io under the project's renaming; both are accepted as the native namespace.
const NATIVE_PREFIXES = ['platform.io/', 'kubernetes.io/'];

const isHugePages = (name: string): boolean => name.startsWith('hugepages-');
const isNative = (name: string): boolean => !name.includes('/') || NATIVE_PREFIXES.some((p) => name.includes(p));
/** Extended resources and hugepages are counted, not shared: request must equal limit. */
const overcommitAllowed = (name: string): boolean => isNative(name) && !isHugePages(name);

function nameProblem(name: string): string | undefined {
  const q = isQualifiedName(name);
  if (q !== undefined) return `${quote(name)} is not a valid resource name: ${q}`;
  if (!name.includes('/')) return STANDARD.has(name) || isHugePages(name) ? undefined : `${quote(name)} must be a standard resource for containers (cpu, memory, ephemeral-storage, hugepages-<size>) or a domain-prefixed extended resource`;
  if (!isNative(name) && (name.startsWith('requests.') || isQualifiedName(`requests.${name}`) !== undefined)) return `${quote(name)} does not follow the extended resource name standard`;
  return undefined;
}

export function validateResources(r: ResourceRequirements, path: string, report: Report): void {
  const values: Record<'limits' | 'requests', Map<string, number>> = { limits: new Map(), requests: new Map() };
  for (const kind of ['limits', 'requests'] as const) {
    for (const [name, text] of Object.entries(r[kind])) {
      const field = `${path}.${kind}[${short(name)}]`;
      const bad = nameProblem(name);
      if (bad !== undefined) report(field, bad);
      const q = quantityValue(text);
      if (!q.ok) report(field, q.message);
      else if (q.value < 0) report(field, `must be greater than or equal to 0, got ${quote(text)}`);
      else if (!Number.isFinite(q.value)) report(field, `${quote(text)} is too large`);
      else if (!isNative(name) && !q.integer) report(field, `must be an integer, got ${quote(text)}`);
      else values[kind].set(name, q.value);
    }
  }
  for (const [name, req] of values.requests) {
    const lim = values.limits.get(name);
    const limText = r.limits[name];
    if (limText === undefined) {
      if (!overcommitAllowed(name)) report(`${path}.limits[${short(name)}]`, 'a limit must be set for resources that cannot be overcommitted');
    } else if (lim !== undefined && req > lim) {
      report(`${path}.requests[${short(name)}]`, `must be less than or equal to the ${name} limit (${short(limText)})`);
    } else if (lim !== undefined && req !== lim && !overcommitAllowed(name)) {
      report(`${path}.requests[${short(name)}]`, `must be equal to the ${name} limit (${short(limText)})`);
    }
  }
  const names = [...Object.keys(r.limits), ...Object.keys(r.requests)];
  if (names.some(isHugePages) && !names.some((n) => n === 'cpu' || n === 'memory')) report(path, 'hugepages require a cpu or memory request or limit');
}
