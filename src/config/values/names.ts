// Name syntax shared by labels and taints, with apimachinery's rules
// (IsQualifiedName, IsValidLabelValue, IsDNS1123Subdomain). Each check returns
// the problem text, or undefined when the value is fine, so callers can prefix
// it with the object it came from.

const QUALIFIED_NAME_MAX = 63;
const LABEL_VALUE_MAX = 63;
const DNS1123_SUBDOMAIN_MAX = 253;

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const NAME_CHARS =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** A lower-case RFC 1123 subdomain, as used for label and taint key prefixes. */
export function isDns1123Subdomain(value: string): string | undefined {
  const errs: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX) errs.push(`must be no more than ${DNS1123_SUBDOMAIN_MAX} characters`);
  if (!DNS1123_SUBDOMAIN.test(value)) {
    errs.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com')",
    );
  }
  return errs.length === 0 ? undefined : errs.join('; ');
}

/** `[prefix/]name`: prefix a DNS subdomain, name at most 63 characters. */
export function isQualifiedName(value: string): string | undefined {
  const parts = value.split('/');
  if (parts.length > 2) {
    return `a qualified name ${NAME_CHARS} (e.g. 'MyName', 'my.name' or '123-abc'), with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`;
  }
  const errs: string[] = [];
  const name = parts.length === 2 ? (parts[1] ?? '') : value;
  if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    if (prefix === '') errs.push('prefix part must be non-empty');
    else {
      const bad = isDns1123Subdomain(prefix);
      if (bad !== undefined) errs.push(`prefix part ${bad}`);
    }
  }
  if (name === '') errs.push('name part must be non-empty');
  else if (name.length > QUALIFIED_NAME_MAX) errs.push(`name part must be no more than ${QUALIFIED_NAME_MAX} characters`);
  if (!QUALIFIED_NAME.test(name)) errs.push(`name part ${NAME_CHARS} (e.g. 'MyName', 'my.name' or '123-abc')`);
  return errs.length === 0 ? undefined : errs.join('; ');
}

/** A label value: empty, or a qualified-name-like token of at most 63 characters. */
export function isLabelValue(value: string): string | undefined {
  const errs: string[] = [];
  if (value.length > LABEL_VALUE_MAX) errs.push(`must be no more than ${LABEL_VALUE_MAX} characters`);
  if (value !== '' && !QUALIFIED_NAME.test(value)) {
    errs.push(`a valid label value must be an empty string or ${NAME_CHARS} (e.g. 'MyValue', 'my_value' or '12345')`);
  }
  return errs.length === 0 ? undefined : errs.join('; ');
}
