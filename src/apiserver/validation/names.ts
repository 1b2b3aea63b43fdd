// Name syntaxes with apimachinery's exact messages (util/validation): each
// check returns every problem as a separate message, as upstream does, so the
// caller makes one FieldError per message. The agent's config/values/names.ts
// checks the same syntaxes but joins and words its messages for flags, so the
// server keeps its own wording here. Pure.

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;

const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const QUALIFIED_NAME = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FMT}$`);

export const DNS1123_LABEL_MAX = 63;
export const DNS1123_SUBDOMAIN_MAX = 253;
const QUALIFIED_NAME_MAX = 63;
const LABEL_VALUE_MAX = 63;

/** upstream's RegexError, including its `'a',  or 'b'` spacing. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let out = `${msg} (e.g. `;
  examples.forEach((e, i) => {
    if (i > 0) out += ' or ';
    out += `'${e}', `;
  });
  return `${out}regex used for validation is '${fmt}')`;
}

export const maxLenError = (n: number): string => `must be no more than ${n} characters`;
export const EMPTY_ERROR = 'must be non-empty';

const DNS1123_LABEL_MSG = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MSG = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MSG = "a valid label value must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

export function isDns1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_LABEL_MAX) errs.push(maxLenError(DNS1123_LABEL_MAX));
  if (!DNS1123_LABEL.test(value)) errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  return errs;
}

export function isDns1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!DNS1123_SUBDOMAIN.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

/** `[prefix/]name` (label keys, annotation keys, finalizers). */
export function isQualifiedName(value: string): string[] {
  const parts = value.split('/');
  let name = value;
  const errs: string[] = [];
  if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix === '') errs.push(`prefix part ${EMPTY_ERROR}`);
    else for (const m of isDns1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
  } else if (parts.length > 2) {
    return [`a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name === '') errs.push(`name part ${EMPTY_ERROR}`);
  else if (name.length > QUALIFIED_NAME_MAX) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX)}`);
  if (!QUALIFIED_NAME.test(name)) errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
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
