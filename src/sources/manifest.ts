// Turns manifest text (YAML or JSON) into static pods: parse, decode,
// validate, apply the static-pod defaults. A bad manifest yields one message
// naming the field, for one log line.
import { parseAllDocuments } from 'yaml';
import type { Pod } from '../api/pod-types.js';
import { decodePod, type DecodeProblem } from '../api/pod-decode.js';
import { isDns1123Subdomain, validatePod } from '../api/pod-validate.js';
import { applyStaticPodDefaults, type StaticSource } from './static-pod.js';

export type ManifestResult = { ok: true; pods: Pod[] } | { ok: false; error: string };

export interface ManifestContext {
  readonly node: string;
  readonly source: StaticSource;
  /** File path or URL: part of the UID, and named in errors. */
  readonly location: string;
  readonly now: Date;
}

function parseText(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  if (text.trim() === '') return { ok: false, error: 'the manifest is empty' };
  const docs = parseAllDocuments(text, { prettyErrors: false });
  if (!Array.isArray(docs)) return { ok: false, error: 'the manifest is empty' };
  const real = docs.filter((d) => d.contents !== null);
  if (real.length > 1) return { ok: false, error: `the manifest holds ${real.length} YAML documents; put one pod per file` };
  const doc = real[0] ?? docs[0]!;
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    return { ok: false, error: `YAML syntax error at line ${e.linePos?.[0].line ?? '?'}: ${e.message.split('\n')[0]}` };
  }
  return { ok: true, value: doc.toJS() };
}

function toPod(raw: unknown, ctx: ManifestContext, where = ''): { ok: true; pod: Pod } | { ok: false; error: string } {
  const fail = (problems: readonly DecodeProblem[]) => ({ ok: false as const, error: problems.map((p) => `${where}${p.field || '(root)'}: ${p.message}`).join('; ') });
  const decoded = decodePod(raw);
  if (!decoded.ok) return fail(decoded.problems);
  const problems = validatePod(decoded.pod);
  if (problems.length > 0) return fail(problems);
  const pod = applyStaticPodDefaults(decoded.pod, ctx.node, ctx.source, ctx.location, ctx.now);
  // The kubelet validates after the static-pod defaults: the name with its node suffix must be valid too.
  if (!isDns1123Subdomain(pod.metadata.name)) {
    return fail([{ field: 'metadata.name', message: `"${decoded.pod.metadata.name}" is too long: with the node name it becomes "${pod.metadata.name}", over 253 characters` }]);
  }
  return { ok: true, pod };
}

/** One pod per file, as the kubelet's file source reads it. */
export function podFromFile(text: string, ctx: ManifestContext): ManifestResult {
  const parsed = parseText(text);
  if (!parsed.ok) return parsed;
  const pod = toPod(parsed.value, ctx);
  return pod.ok ? { ok: true, pods: [pod.pod] } : pod;
}

/** A Pod or a PodList, as the kubelet's HTTP source reads it; one bad pod rejects the whole list. */
export function podsFromUrlBody(text: string, ctx: ManifestContext): ManifestResult {
  const parsed = parseText(text);
  if (!parsed.ok) return parsed;
  const v = parsed.value as { kind?: unknown; items?: unknown } | null;
  if (v !== null && typeof v === 'object' && v.kind === 'PodList') {
    if (!Array.isArray(v.items)) return { ok: false, error: 'items: a PodList needs an items list' };
    const pods: Pod[] = [];
    for (const [i, item] of v.items.entries()) {
      const withKind = item !== null && typeof item === 'object' ? { apiVersion: 'v1', kind: 'Pod', ...(item as object) } : item;
      const r = toPod(withKind, ctx, `items[${i}].`);
      if (!r.ok) return r;
      pods.push(r.pod);
    }
    return { ok: true, pods };
  }
  const pod = toPod(parsed.value, ctx);
  return pod.ok ? { ok: true, pods: [pod.pod] } : pod;
}
