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

/**
 * `--manifest-url-header` entries, `name:value` separated by commas. The value
 * may itself contain colons (it is split at the first one); order is kept
 * because repeated names become repeated headers.
 */
export function parseHeaders(text: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const entry of text.split(',')) {
    if (entry.trim() === '') continue;
    const at = entry.indexOf(':');
    if (at === -1) throw new ValueError(`malformed header ${JSON.stringify(entry)}: expected name:value`);
    const name = entry.slice(0, at).trim();
    if (!HEADER_NAME.test(name)) {
      throw new ValueError(`malformed header ${JSON.stringify(entry)}: ${JSON.stringify(name)} is not a valid header name`);
    }
    out.push([name, entry.slice(at + 1).trim()]);
  }
  return out;
}
