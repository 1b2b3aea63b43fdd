// Turns manifest text (YAML or JSON) into static pods: parse, decode,
// validate, apply the static-pod defaults. A bad manifest yields one message
// naming the field, for one log line. Total: whatever the text holds (any YAML
// feature, any size the sources let through), the answer is a result, never
// an exception; the sources rely on that to keep one bad file to itself.
import { loadAll, YAMLException } from 'js-yaml';
import type { Pod } from '../pod-model/pod-types.js';
import { decodePod, type DecodeProblem } from '../pod-model/pod-decode.js';
import { isDns1123Subdomain, validatePod } from '../pod-model/pod-validate.js';
import { applyStaticPodDefaults, type StaticSource } from './static-pod.js';

export type ManifestResult = { ok: true; pods: Pod[] } | { ok: false; error: string };

export interface ManifestContext {
  readonly node: string;
  readonly source: StaticSource;
  /** File path or URL: part of the UID, and named in errors. */
  readonly location: string;
  readonly now: Date;
  /** The SidecarContainers gate: without it an init container's restartPolicy is refused, as the API server does. */
  readonly sidecars?: boolean;
}

/** The kubelet's cap on a manifest (file or URL body): larger ones are refused unread. */
export const MAX_MANIFEST_BYTES = 10 * 1024 * 1024;

/**
 * Alias uses per document. A "billion laughs" document of a few hundred bytes
 * stands for gigabytes once something walks it; with 100 aliases, the pod
 * schema's few nested lists bound what the decoder can be made to visit.
 */
const MAX_ALIASES = 100;
/** Values a document may stand for with its aliases expanded: a pod is a few hundred. */
const MAX_EXPANDED_NODES = 100_000;
/** Collection nesting: a pod needs about a dozen levels; deeper is an attack on the parser's recursion. */
const MAX_DEPTH = 64;

/** One problem is shown at most this long: a 1 MB bad value must not become a 1 MB log line. */
const MAX_PROBLEM_CHARS = 400;
/** Problems listed in the one message; the rest are counted. */
const MAX_PROBLEMS = 10;

type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

const clip = (s: string, n: number): string => (s.length <= n ? s : `${s.slice(0, n)}… (${s.length} characters)`);

/** JSON first when the text looks like it (a 9 MB PodList parses ~50× faster), else YAML. */
function parseText(text: string): Parsed {
  if (text.trim() === '') return { ok: false, error: 'the manifest is empty' };
  const first = /\S/.exec(text)?.[0];
  if (first === '{' || first === '[') {
    try {
      return { ok: true, value: JSON.parse(text) as unknown };
    } catch {
      // Not JSON after all (YAML flow style, a comment, a syntax error): YAML names the line.
    }
  }
  try {
    return parseYaml(text);
  } catch (e) {
    // The parser itself gave up: deep nesting overflows its recursion, and so on.
    return { ok: false, error: `YAML cannot be parsed: ${clip(e instanceof Error ? e.message : String(e), MAX_PROBLEM_CHARS)}` };
  }
}

function parseYaml(text: string): Parsed {
  const docs: unknown[] = [];
  try {
    loadAll(text, (d) => void docs.push(d), { maxAliases: MAX_ALIASES, maxDepth: MAX_DEPTH });
  } catch (e) {
    if (!(e instanceof YAMLException)) throw e;
    const at = e.mark ? `line ${e.mark.line + 1}, column ${e.mark.column + 1}` : 'an unknown position';
    const reason = e.reason || e.message;
    if (/maxAliases/.test(reason)) return { ok: false, error: `YAML aliases refused at ${at}: more than ${MAX_ALIASES} alias uses (a resource-exhaustion attack?)` };
    if (/unidentified alias/.test(reason)) return { ok: false, error: `YAML alias without an anchor at ${at}: ${clip(reason, MAX_PROBLEM_CHARS)}` };
    return { ok: false, error: `YAML syntax error at ${at}: ${clip(reason, MAX_PROBLEM_CHARS)}` };
  }
  const real = docs.filter((d) => d !== null && d !== undefined);
  if (real.length === 0) return { ok: false, error: docs.length === 0 ? 'the manifest holds no object (only comments or document markers)' : 'the manifest is empty (null)' };
  if (real.length > 1) return { ok: false, error: `the manifest holds ${real.length} YAML documents; put one pod per file` };
  const expanded = expandedSize(real[0], MAX_EXPANDED_NODES);
  if (expanded > MAX_EXPANDED_NODES) return { ok: false, error: `YAML aliases expand the manifest to more than ${MAX_EXPANDED_NODES} values (a resource-exhaustion attack?); refused` };
  return { ok: true, value: real[0] };
}

/**
 * How many values `v` stands for once its aliases are expanded, counted up to
 * just past `limit`. js-yaml shares an aliased value instead of copying it, so
 * a "billion laughs" costs nothing to parse; it is everything that walks the
 * result afterwards that would pay. Counting with a memo per shared value is
 * linear in what the text really holds.
 */
function expandedSize(v: unknown, limit: number, memo = new Map<object, number>()): number {
  if (v === null || typeof v !== 'object') return 1;
  const known = memo.get(v);
  if (known !== undefined) return known;
  let n = 1;
  for (const child of Array.isArray(v) ? v : Object.values(v)) {
    n += expandedSize(child, limit, memo);
    if (n > limit) break;
  }
  memo.set(v, n);
  return n;
}

function describeProblems(problems: readonly DecodeProblem[], where: string): string {
  const shown = problems.slice(0, MAX_PROBLEMS).map((p) => clip(`${where}${p.field || '(root)'}: ${p.message}`, MAX_PROBLEM_CHARS));
  if (problems.length > MAX_PROBLEMS) shown.push(`and ${problems.length - MAX_PROBLEMS} more problems`);
  return shown.join('; ');
}

function toPod(raw: unknown, ctx: ManifestContext, where = ''): { ok: true; pod: Pod } | { ok: false; error: string } {
  const fail = (problems: readonly DecodeProblem[]) => ({ ok: false as const, error: describeProblems(problems, where) });
  const decoded = decodePod(raw);
  if (!decoded.ok) return fail(decoded.problems);
  const problems = validatePod(decoded.pod, { sidecarContainers: ctx.sidecars === true });
  if (problems.length > 0) return fail(problems);
  const pod = applyStaticPodDefaults(decoded.pod, ctx.node, ctx.source, ctx.location, ctx.now);
  // The kubelet validates after the static-pod defaults: the name with its node suffix must be valid too.
  if (!isDns1123Subdomain(pod.metadata.name)) {
    return fail([{ field: 'metadata.name', message: `"${decoded.pod.metadata.name}" is too long: with the node name it becomes "${pod.metadata.name}", over 253 characters` }]);
  }
  return { ok: true, pod };
}

/** Runs `f`, turning anything it throws into a result: a decoder bug must cost one manifest, not the source. */
function total(f: () => ManifestResult): ManifestResult {
  try {
    return f();
  } catch (e) {
    return { ok: false, error: `the manifest could not be processed: ${clip(e instanceof Error ? e.message : String(e), MAX_PROBLEM_CHARS)}` };
  }
}

/** One pod per file, as the kubelet's file source reads it. */
export function podFromFile(text: string, ctx: ManifestContext): ManifestResult {
  return total(() => {
    const parsed = parseText(text);
    if (!parsed.ok) return parsed;
    const pod = toPod(parsed.value, ctx);
    return pod.ok ? { ok: true, pods: [pod.pod] } : pod;
  });
}

/** A Pod or a PodList, as the kubelet's HTTP source reads it; one bad pod rejects the whole list. */
export function podsFromUrlBody(text: string, ctx: ManifestContext): ManifestResult {
  return total(() => {
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
  });
}

export type ManifestKind = 'file' | 'url';

/** The parser of `kind`: what the worker and the inline path both call. */
export function parseManifest(kind: ManifestKind, text: string, ctx: ManifestContext): ManifestResult {
  return kind === 'file' ? podFromFile(text, ctx) : podsFromUrlBody(text, ctx);
}
