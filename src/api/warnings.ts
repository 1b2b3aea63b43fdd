// `Warning` response headers (RFC 7234 §5.5 form, as kube-apiserver sends
// them): `299 - "text"` with `"` and `\` escaped. The server keeps one
// WarningCollector per request (handlers add, the front writes `headers()`
// before the status line); the agent's client parses what it receives.
// Pure values, no I/O; a collector is not shared across requests.

/** Total bytes of Warning header values before truncation starts (upstream's 4 KiB). */
export const MAX_WARNINGS_BYTES = 4 * 1024;
/** Runes kept of each warning once truncating (upstream's 256). */
export const TRUNCATED_WARNING_RUNES = 256;

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

const truncateRunes = (s: string, n: number): string => {
  const runes = [...s];
  return runes.length > n ? runes.slice(0, n).join('') : s;
};

/**
 * Collects one request's warnings: duplicates (same text) are dropped, and
 * once the values would exceed 4 KiB the collector switches to truncating
 * mode for good: every warning (earlier ones replayed) is cut to 256 runes
 * and those that still do not fit are dropped, as upstream's recorder does.
 */
export class WarningCollector {
  private readonly texts: string[] = [];
  private readonly seen = new Set<string>();
  private out: string[] = [];
  private written = 0;
  private truncating = false;

  constructor(
    private readonly maxBytes = MAX_WARNINGS_BYTES,
    private readonly truncateTo = TRUNCATED_WARNING_RUNES,
  ) {}

  add(text: string): void {
    if (text === '' || this.seen.has(text)) return;
    if (this.truncating && this.written >= this.maxBytes) return;
    this.seen.add(text);
    this.texts.push(text);
    const header = formatWarning(this.truncating ? truncateRunes(text, this.truncateTo) : text);
    const size = Buffer.byteLength(header, 'utf8');
    if (this.written + size <= this.maxBytes) {
      this.written += size;
      this.out.push(header);
      return;
    }
    if (this.truncating) return;
    this.truncating = true;
    this.written = 0;
    this.out = [];
    for (const t of this.texts) {
      const h = formatWarning(truncateRunes(t, this.truncateTo));
      const sz = Buffer.byteLength(h, 'utf8');
      if (this.written + sz > this.maxBytes) break;
      this.written += sz;
      this.out.push(h);
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
