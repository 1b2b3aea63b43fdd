// Field selectors (`fieldSelector=spec.nodeName=n1,metadata.name!=x`), with
// upstream's grammar, escapes (`\,` `\=` `\\`) and messages. The registry
// parses once per request, refuses fields its resource does not support
// (`checkFieldsSupported`, upstream's 400 text) and may use `exactMatch` to
// serve `spec.nodeName=<node>` from an index. Pure and synchronous.
import { ApiError, apiErrors } from './errors.js';

export interface FieldTerm {
  readonly field: string;
  readonly operator: '=' | '!=';
  readonly value: string;
}

export interface FieldSelector {
  /** Sorted as upstream sorts the raw terms (by their text). */
  readonly terms: readonly FieldTerm[];
  /** `get` returns a field's value; a missing field counts as ''. */
  matches(get: (field: string) => string | undefined): boolean;
  empty(): boolean;
  /** The fields named, de-duplicated, in term order. */
  fields(): string[];
  /** The value when a term pins `field` with `=` (or `==`). */
  exactMatch(field: string): string | undefined;
  toString(): string;
}

/** Escapes `\`, `,` and `=` in a value, as upstream's EscapeValue. */
export const escapeFieldValue = (v: string): string => v.replace(/[\\,=]/g, (c) => `\\${c}`);

function unescape(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') throw apiErrors.badRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      inSlash = false;
    } else if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') throw apiErrors.badRequest(`invalid field selector: unescaped character in value: ${c}`);
    else out += c;
  }
  if (inSlash) throw apiErrors.badRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Splits on commas not preceded by an escaping backslash; escapes stay in place. */
function splitTerms(s: string): string[] {
  if (s === '') return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

function splitTerm(term: string): [string, '=' | '!=', string] | undefined {
  for (let i = 0; i < term.length; i++) {
    const rest = term.slice(i);
    if (rest.startsWith('!=')) return [term.slice(0, i), '!=', term.slice(i + 2)];
    if (rest.startsWith('==')) return [term.slice(0, i), '=', term.slice(i + 2)];
    if (rest.startsWith('=')) return [term.slice(0, i), '=', term.slice(i + 1)];
  }
  return undefined;
}

export function fieldSelectorOf(terms: readonly FieldTerm[]): FieldSelector {
  return {
    terms,
    matches: (get) => terms.every((t) => ((get(t.field) ?? '') === t.value) === (t.operator === '=')),
    empty: () => terms.length === 0,
    fields: () => [...new Set(terms.map((t) => t.field))],
    exactMatch: (field) => terms.find((t) => t.field === field && t.operator === '=')?.value,
    toString: () => terms.map((t) => `${t.field}${t.operator}${escapeFieldValue(t.value)}`).join(','),
  };
}

/**
 * Parses `fieldSelector` text; '' selects everything. Throws a 400 with
 * upstream's message (`invalid selector: '<s>'; can't understand '<term>'`).
 */
export function parseFieldSelector(text: string): FieldSelector {
  const parts = splitTerms(text).sort();
  const terms: FieldTerm[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const split = splitTerm(part);
    if (split === undefined) throw apiErrors.badRequest(`invalid selector: '${text}'; can't understand '${part}'`);
    terms.push({ field: split[0], operator: split[1], value: unescape(split[2]) });
  }
  return fieldSelectorOf(terms);
}

/** Upstream's 400 for a field the resource cannot select on. */
export const unsupportedFieldError = (field: string): ApiError => apiErrors.badRequest(`field label not supported: ${field}`);

/** Throws the 400 for the first field of `sel` not in `supported`. */
export function checkFieldsSupported(sel: FieldSelector, supported: readonly string[]): void {
  const bad = sel.fields().find((f) => !supported.includes(f));
  if (bad !== undefined) throw unsupportedFieldError(bad);
}
