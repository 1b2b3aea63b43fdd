// ClusterTrustBundles for projected volumes (the kubelet's clustertrustbundle
// manager): one bundle by name, or every bundle of a signer whose labels match
// a selector, their certificates merged, deduplicated and sorted so that the
// file changes only when the set does (the API allows consumers to reorder and
// deduplicate, cluster-api-conventions §2.3 rule 4). The merge is pure; the
// reads may block on the API server.
import type { ApiClient, ApiObject } from '../client/index.js';
import { RESOURCES } from '../client/index.js';
import { isNotFound } from '../api/errors.js';
import { labelSelectorFromObject } from '../api/selectors.js';
import type { TrustBundleQuery } from './types.js';

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n(?:[^\r\n:]+:[^\r\n]*\r?\n)*(?:\r?\n)?([A-Za-z0-9+/=\r\n\t ]*?)-----END \1-----/g;

/** The DER (base64, without whitespace) of every CERTIFICATE block in a bundle; other blocks and text between blocks dropped. Pure. */
export function certificateBlocks(bundle: string): string[] {
  const out: string[] = [];
  for (const m of bundle.matchAll(PEM_BLOCK)) if (m[1] === 'CERTIFICATE') out.push(m[2]!.replace(/\s+/g, ''));
  return out;
}

/** One certificate as a PEM block with 64-column lines and a final newline. Pure. */
export function pemBlock(derBase64: string): string {
  const lines = derBase64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

/** The certificates of all bundles as PEM blocks: deduplicated by content and sorted, so that any order of bundles gives the same list. Pure. */
export function mergeTrustBundles(bundles: readonly string[]): string[] {
  const set = new Set<string>();
  for (const b of bundles) for (const der of certificateBlocks(b)) set.add(der);
  return [...set].sort().map(pemBlock);
}

const trustBundleOf = (o: ApiObject): string => {
  const spec = o['spec'] as { trustBundle?: unknown } | undefined;
  return typeof spec?.trustBundle === 'string' ? spec.trustBundle : '';
};

/** The merged PEM blocks the query selects; [] when the named bundle is absent or no bundle matches. */
export async function readTrustBundles(client: ApiClient, q: TrustBundleQuery, signal: AbortSignal): Promise<string[]> {
  const rc = client.rest.resource(RESOURCES.clusterTrustBundles);
  if (q.name !== undefined && q.name !== '') {
    try {
      return mergeTrustBundles([trustBundleOf(await rc.get(q.name, { signal }))]);
    } catch (e) {
      if (isNotFound(e)) return [];
      throw e;
    }
  }
  if (q.signerName === undefined || q.signerName === '') return [];
  // An absent selector matches nothing; an empty one everything (the API's rule for this projection).
  const selector = labelSelectorFromObject(q.labelSelector ?? null);
  if (!selector.selectable) return [];
  const { items } = await rc.listAll({ fieldSelector: `spec.signerName=${q.signerName}`, ...(selector.empty() ? {} : { labelSelector: selector.toString() }), omitManagedFields: true, signal });
  // Checked here too: the signer field selector is what the server must support, labels are filtered again in case it ignored them.
  const matching = items.filter((o) => {
    const meta = o['metadata'] as { labels?: Record<string, string> } | undefined;
    const spec = o['spec'] as { signerName?: unknown } | undefined;
    return spec?.signerName === q.signerName && selector.matches(meta?.labels);
  });
  return mergeTrustBundles(matching.map(trustBundleOf));
}
