// Generic key/value flag syntaxes from pflag and k8s.io/component-base/cli/flag
// (MapStringString, MapStringBool, LangleSeparatedMapStringString,
// ColonSeparatedMultimapStringString) and Go's strconv.ParseBool.
// Maps are built through a Map so that keys such as `__proto__` stay plain keys.
import { ValueError } from '../../errors.js';

const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const GO_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);
const GO_BOOL_HELP = 'expected one of 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False';

/** Go strconv.ParseBool: exactly these spellings, no surrounding spaces. */
export function parseGoBool(text: string): boolean {
  if (GO_TRUE.has(text)) return true;
  if (GO_FALSE.has(text)) return false;
  throw new ValueError(`invalid boolean ${JSON.stringify(text)}: ${GO_BOOL_HELP}`);
}

export interface PairOptions {
  /** Between entries; default `,`. */
  pairSep?: string;
  /** Between key and value (split at its first occurrence); default `=`. */
  kvSep?: string;
}

/** Splits `k=v,k2=v2` into trimmed pairs; empty entries are skipped, as cliflag does. */
function splitPairs(text: string, pairSep: string, kvSep: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const entry of text.split(pairSep)) {
    if (entry.trim() === '') continue;
    const at = entry.indexOf(kvSep);
    if (at === -1) throw new ValueError(`malformed pair ${JSON.stringify(entry)}: expected key${kvSep}value`);
    const key = entry.slice(0, at).trim();
    if (key === '') throw new ValueError(`malformed pair ${JSON.stringify(entry)}: empty key`);
    out.push([key, entry.slice(at + kvSep.length).trim()]);
  }
  return out;
}

/** cliflag MapStringString: `a=1, b=2` → {a:'1', b:'2'}; later keys win; '' → {}. */
export function parseMapStringString(text: string, opts: PairOptions = {}): Record<string, string> {
  return Object.fromEntries(new Map(splitPairs(text, opts.pairSep ?? ',', opts.kvSep ?? '=')));
}

/** cliflag MapStringBool, the `--feature-gates` syntax: `A=true,B=0`. */
export function parseMapStringBool(text: string): Record<string, boolean> {
  const out = new Map<string, boolean>();
  for (const [key, value] of splitPairs(text, ',', '=')) {
    if (!GO_TRUE.has(value) && !GO_FALSE.has(value)) {
      throw new ValueError(`invalid value of ${key}: ${value}, err: ${GO_BOOL_HELP}`);
    }
    out.set(key, GO_TRUE.has(value));
  }
  return Object.fromEntries(out);
}

/** cliflag LangleSeparatedMapStringString: `memory.available<100Mi,nodefs.available<10%`. */
export function parseLangleSeparatedMap(text: string): Record<string, string> {
  return parseMapStringString(text, { kvSep: '<' });
}

// RFC 9110 token: what an HTTP header name may contain.
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// What Node's HTTP client refuses in a header value:
// control characters other than tab (CR and LF would split the request) and
// anything outside Latin-1.
const BAD_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** Why `name: value` cannot be sent as an HTTP header, or undefined when it can. */
export function headerProblem(name: string, value: string): string | undefined {
  if (!HEADER_NAME.test(name)) return `${JSON.stringify(name)} is not a valid header name`;
  const bad = BAD_HEADER_VALUE.exec(value);
  if (bad !== null) {
    const code = `U+${bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    return `the value of ${JSON.stringify(name)} holds ${code}, which an HTTP header cannot carry (control characters other than tab, and characters beyond U+00FF)`;
  }
  return undefined;
}

/**
 * `--manifest-url-header` entries, `name:value` separated by commas. The value
 * may itself contain colons (it is split at the first one); order is kept
 * because repeated names become repeated headers. A header the HTTP client
 * would refuse is rejected here rather than on every poll of the URL.
 */
export function parseHeaders(text: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const entry of text.split(',')) {
    if (entry.trim() === '') continue;
    const at = entry.indexOf(':');
    if (at === -1) throw new ValueError(`malformed header ${JSON.stringify(entry)}: expected name:value`);
    const name = entry.slice(0, at).trim();
    const value = entry.slice(at + 1).trim();
    const bad = headerProblem(name, value);
    if (bad !== undefined) throw new ValueError(`malformed header ${JSON.stringify(entry)}: ${bad}`);
    out.push([name, value]);
  }
  return out;
}
