// `Warning` response headers (RFC 7234 §5.5 form, as kube-apiserver sends
// them): `299 - "text"` with `"` and `\` escaped. The server keeps one
// WarningCollector per request (handlers add, the front writes `headers()`
// before the status line); the agent's client parses what it receives.
// Pure values, no I/O; a collector is not shared across requests.

/** Runes of warning text sent before truncation starts (upstream's 4 Ki). */
export const TRUNCATE_AT_TOTAL_RUNES = 4 * 1024;
/** Runes kept of each warning once truncating (upstream's 256). */
export const TRUNCATE_ITEM_RUNES = 256;

const quoteText = (text: string): string => `"${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;

/**
 * One header value: `<code> <agent> "<text>"`. Throws a TypeError for a code
 * outside 0..999 or an agent with whitespace (caller bugs, not client input).
 */
export function formatWarning(text: string, code = 299, agent = '-'): string {
  if (!Number.isInteger(code) || code < 0 || code > 999) throw new TypeError('code must be between 0 and 999');
  const a = agent === '' ? '-' : agent;
  if (/[ \t\r\n]/.test(a)) throw new TypeError('agent must be valid UTF-8 and must not contain spaces, tabs, or newlines');
  return `${String(code).padStart(3, '0')} ${a} ${quoteText(text)}`;
}

/** The first `n` runes of `s`, and how many runes that is. */
function truncate(s: string, n: number): [string, number] {
  const runes = [...s];
  return runes.length > n ? [runes.slice(0, n).join(''), n] : [s, runes.length];
}

/**
 * Collects one request's warnings as upstream's recorder does: duplicates
 * (same text) are dropped; the texts may total 4 Ki runes, and the warning
 * that would pass that switches to truncating mode for good: every warning
 * so far is replayed cut to 256 runes, later ones are cut too, and once the
 * total reaches 4 Ki runes again nothing more is added. Not shared across
 * requests; callers add from the handler, the front reads `headers()` once.
 */
export class WarningCollector {
  private readonly ordered: Array<{ agent: string; text: string }> = [];
  private readonly seen = new Set<string>();
  private out: string[] = [];
  private written = 0;
  private truncating = false;

  constructor(
    private readonly totalRunes = TRUNCATE_AT_TOTAL_RUNES,
    private readonly itemRunes = TRUNCATE_ITEM_RUNES,
  ) {}

  add(text: string, agent = '-'): void {
    if (text === '') return;
    if (this.written >= this.totalRunes && this.truncating) return;
    if (this.seen.has(text)) return;
    this.seen.add(text);
    this.ordered.push({ agent, text });
    const [t, runes] = this.truncating ? truncate(text, this.itemRunes) : [text, [...text].length];
    if (this.written + runes <= this.totalRunes || this.truncating) {
      this.written += runes;
      this.out.push(formatWarning(t, 299, agent));
      return;
    }
    this.truncating = true;
    this.written = 0;
    this.out = [];
    for (const w of this.ordered) {
      const [tt, n] = truncate(w.text, this.itemRunes);
      this.written += n;
      this.out.push(formatWarning(tt, 299, w.agent));
    }
  }

  /** The header values to send, in order (one `Warning` header each). */
  headers(): readonly string[] {
    return this.out;
  }
}

export interface ParsedWarning {
  code: number;
  agent: string;
  text: string;
}

/**
 * Parses received `Warning` values (each may hold several comma-separated
 * warnings). Malformed entries are skipped and reported in `errors`.
 */
export function parseWarnings(values: readonly string[]): { warnings: ParsedWarning[]; errors: string[] } {
  const warnings: ParsedWarning[] = [];
  const errors: string[] = [];
  for (const value of values) {
    let rest = value.trim();
    while (rest !== '') {
      const m = /^(\d{3}) ([^ \t\r\n]+) "/.exec(rest);
      if (m === null) {
        errors.push(`invalid warning header: ${JSON.stringify(rest)}`);
        break;
      }
      let i = m[0].length;
      let text = '';
      let closed = false;
      for (; i < rest.length; i++) {
        const c = rest[i]!;
        if (c === '\\' && i + 1 < rest.length) text += rest[++i]!;
        else if (c === '"') {
          closed = true;
          i++;
          break;
        } else text += c;
      }
      if (!closed) {
        errors.push(`invalid warning header: unterminated text in ${JSON.stringify(rest)}`);
        break;
      }
      warnings.push({ code: Number(m[1]), agent: m[2]!, text });
      // An optional quoted warn-date, then a comma before the next warning.
      rest = rest.slice(i).replace(/^\s*"[^"]*"/, '').trim();
      if (rest.startsWith(',')) rest = rest.slice(1).trim();
      else if (rest !== '') {
        errors.push(`invalid warning header: unexpected ${JSON.stringify(rest)}`);
        break;
      }
    }
  }
  return { warnings, errors };
}
