// Name syntaxes of object validation with apimachinery's messages
// (util/validation): each check returns every problem as a separate message,
// so the caller makes one FieldError per message. The subdomain, qualified
// name and regex-error rules are src/api/label-syntax.ts's (shared with the
// selector parser); this adds the DNS label, label value and path-segment
// rules. The agent's config/values/names.ts words its messages for flags. Pure.
import { isDns1123Subdomain, isQualifiedName, maxLenError, regexError } from '../../api/label-syntax.js';

export { isDns1123Subdomain, isQualifiedName, maxLenError, regexError };

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;

const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FMT}$`);

export const DNS1123_LABEL_MAX = 63;
export const DNS1123_SUBDOMAIN_MAX = 253;
const LABEL_VALUE_MAX = 63;

export const EMPTY_ERROR = 'must be non-empty';

const DNS1123_LABEL_MSG = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const LABEL_VALUE_MSG = "a valid label value must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

export function isDns1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_LABEL_MAX) errs.push(maxLenError(DNS1123_LABEL_MAX));
  if (!DNS1123_LABEL.test(value)) errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  return errs;
}

export function isLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > LABEL_VALUE_MAX) errs.push(maxLenError(LABEL_VALUE_MAX));
  if (!LABEL_VALUE.test(value)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** A generateName prefix is checked with its trailing '-' masked, as upstream's maskTrailingDash. */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -1)}a` : name;
}

/** upstream's NameIsDNSSubdomain(name, prefix). */
export const nameIsDnsSubdomain = (name: string, prefix: boolean): string[] => isDns1123Subdomain(prefix ? maskTrailingDash(name) : name);

/** upstream's NameIsDNSLabel(name, prefix). */
export const nameIsDnsLabel = (name: string, prefix: boolean): string[] => isDns1123Label(prefix ? maskTrailingDash(name) : name);

/** upstream's ValidatePathSegmentName: names that fit in a URL path segment (events, leases...). */
export function isValidPathSegmentName(name: string, prefix: boolean): string[] {
  if (prefix) {
    for (const bad of ['/', '%']) if (name.includes(bad)) return [`may not contain '${bad}'`];
    return [];
  }
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  for (const bad of ['/', '%']) if (name.includes(bad)) return [`may not contain '${bad}'`];
  return [];
}
