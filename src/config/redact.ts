// What the agent may show of a configuration value. Options marked
// `sensitive` in the option table may carry credentials (an Authorization
// header, a URL with a password); every place that shows configuration —
// --print-config, the start-up log's summary, later /configz — goes through
// these functions, so a new sensitive option needs only its marker.
import { configSpec, type AgentConfiguration } from './options.js';
import { describeSource, type ResolvedConfig } from './resolve.js';
import { getIn, leaves, type Leaf, type Opt } from './spec.js';
import { putOwn } from './kinds-base.js';

export const REDACTED = '<redacted>';

export const isSensitive = (opt: Opt<unknown>): boolean => opt.sensitive;

/** `scheme://user:password@host/...`: the userinfo is the secret, the rest says where the agent connects. */
const URL_USERINFO = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#@]*)@/;

function redactText(text: string): string {
  if (text === '') return text;
  const m = URL_USERINFO.exec(text);
  if (m) return `${m[1]}${REDACTED}@${text.slice(m[0].length)}`;
  // A URL without userinfo carries no credential of its own; any other text is one.
  return /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(text) ? text : REDACTED;
}

function redactDeep(v: unknown): unknown {
  if (typeof v === 'string') return redactText(v);
  if (Array.isArray(v)) return v.map(redactDeep);
  if (v !== null && typeof v === 'object') {
    // Keys (header names) stay: an operator needs to see which headers are set.
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) putOwn(out, k, redactDeep(x));
    return out;
  }
  return v === null || v === undefined ? v : REDACTED;
}

/**
 * A value in its file encoding as it may be shown: unchanged for an ordinary
 * option; for a sensitive one, map keys and URLs' hosts kept, every other
 * string replaced by `<redacted>`. Pure and idempotent.
 */
export function redactEncoded(opt: Opt<unknown>, encoded: unknown): unknown {
  return isSensitive(opt) ? redactDeep(encoded) : encoded;
}

/** A leaf's value in `config`, in its file encoding, redacted where sensitive. */
export function shownValue(leaf: Leaf, config: AgentConfiguration): unknown {
  return redactEncoded(leaf.opt, leaf.opt.kind.encode(getIn(config, leaf.keys) as never));
}

export interface ExplicitSetting {
  readonly value: unknown;
  /** `--config FILE`, `drop-in FILE` or `flag --NAME` (describeSource). */
  readonly from: string;
}

/**
 * The fields a config file, drop-in or flag set, each with where it came from:
 * the start-up log's summary (agent.ts, once, at V(2)). A sensitive map is
 * listed by its keys alone: a log line needs no `<redacted>` per entry.
 */
export function explicitSettings(r: Pick<ResolvedConfig, 'config' | 'provenance'>): Record<string, ExplicitSetting> {
  const out: Record<string, ExplicitSetting> = {};
  for (const leaf of leaves(configSpec)) {
    const source = r.provenance.get(leaf.path);
    if (source === undefined || source.kind === 'default') continue;
    const shown = shownValue(leaf, r.config);
    const compact = isSensitive(leaf.opt) && shown !== null && typeof shown === 'object' && !Array.isArray(shown) ? Object.keys(shown) : shown;
    putOwn(out, leaf.path, { value: compact, from: describeSource(source) });
  }
  return out;
}
