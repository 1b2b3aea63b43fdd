// One JSON text per content: pod and container hashes (the spec hashes the
// runtime's labels carry, the static pods' content hash) and the sources'
// "same desired pod" check must not depend on the key order of a manifest.
import { compareStrings } from './compare.js';
/** JSON with object keys sorted, so equal content hashes equally whatever the key order in the file. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => compareStrings(a, b));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}
