// Label and field selectors: upstream's grammar and messages, as pure values.
// The server parses `labelSelector`/`fieldSelector` once per request (a bad
// one is a 400 with upstream's text) and calls `matches` per object; the
// agent's client builds selectors from LabelSelector objects (pod affinity,
// ClusterTrustBundle projections) and prints them into query strings.
// Everything here is synchronous, side-effect free and safe to share.
import { ApiError, apiErrors } from './errors.js';
import { aggregate, invalidMessage, isQualifiedName, isValidLabelValue } from './label-syntax.js';

export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

/** One ANDed term of a label selector; `values` sorted and de-duplicated. */
export interface Requirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

export interface LabelSelector {
  /** Sorted by key (stable), as upstream keeps them. */
  readonly requirements: readonly Requirement[];
  /** False only for the selector built from a null LabelSelector object. */
  readonly selectable: boolean;
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** True when it selects everything. */
  empty(): boolean;
  /** The value `key` must have (`key=v`, `key==v`, `key in (v)`), for index lookups. */
  requiresExactMatch(key: string): string | undefined;
  toString(): string;
}

/** The LabelSelector object of the API (metav1.LabelSelector). */
export interface LabelSelectorObject {
  matchLabels?: Readonly<Record<string, string>> | null;
  matchExpressions?: ReadonlyArray<{ key: string; operator: string; values?: readonly string[] | null }> | null;
}

const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

/** Go's strconv.ParseInt(v, 10, 64) succeeds. */
const isInt64 = (v: string): boolean => /^[+-]?\d+$/.test(v) && BigInt(v) >= -(2n ** 63n) && BigInt(v) < 2n ** 63n;

function requirementErrors(key: string, op: LabelOperator, values: readonly string[], path: string): string[] {
  const p = (child: string): string => (path === '' ? child : `${path}.${child}`);
  const errs: string[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length > 0) errs.push(invalidMessage(p('key'), key, keyErrs.join('; ')));
  const vp = p('values');
  if (op === 'in' || op === 'notin') {
    if (values.length === 0) errs.push(invalidMessage(vp, values, "for 'in', 'notin' operators, values set can't be empty"));
  } else if (op === '=' || op === '==' || op === '!=') {
    if (values.length !== 1) errs.push(invalidMessage(vp, values, 'exact-match compatibility requires one single value'));
  } else if (op === 'exists' || op === '!') {
    if (values.length !== 0) errs.push(invalidMessage(vp, values, 'values set must be empty for exists and does not exist'));
  } else {
    if (values.length !== 1) errs.push(invalidMessage(vp, values, "for 'Gt', 'Lt' operators, exactly one value is required"));
    values.forEach((v, i) => {
      if (!isInt64(v)) errs.push(invalidMessage(`${vp}[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
    });
  }
  values.forEach((v, i) => {
    const ve = isValidLabelValue(v);
    if (ve.length > 0) errs.push(invalidMessage(`${vp}[${i}][${key}]`, v, ve.join('; ')));
  });
  return errs;
}

/** A validated requirement; throws a 400 with upstream's aggregate message. */
export function newRequirement(key: string, operator: LabelOperator, values: readonly string[], path = ''): Requirement {
  const errs = requirementErrors(key, operator, values, path);
  if (errs.length > 0) throw apiErrors.badRequest(aggregate(errs));
  return { key, operator, values: [...new Set(values)].sort() };
}

function requirementMatches(r: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const v = has ? labels[r.key]! : '';
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(v);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(v);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !isInt64(v) || r.values.length !== 1) return false;
      const lhs = BigInt(v);
      const rhs = BigInt(r.values[0]!);
      return r.operator === 'gt' ? lhs > rhs : lhs < rhs;
    }
  }
}

function requirementString(r: Requirement): string {
  const vals = r.values.join(',');
  switch (r.operator) {
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
    case 'in':
    case 'notin':
      return `${r.key} ${r.operator} (${vals})`;
    case 'gt':
      return `${r.key}>${vals}`;
    case 'lt':
      return `${r.key}<${vals}`;
    default:
      return `${r.key}${r.operator}${vals}`;
  }
}

/** A selector over the given requirements (sorted by key here). */
export function labelSelectorOf(reqs: readonly Requirement[], selectable = true): LabelSelector {
  const requirements = [...reqs].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {
    requirements,
    selectable,
    matches: (labels) => selectable && requirements.every((r) => requirementMatches(r, labels ?? {})),
    empty: () => selectable && requirements.length === 0,
    requiresExactMatch: (key) => {
      const r = requirements.find((x) => x.key === key);
      if (r === undefined || !(r.operator === '=' || r.operator === '==' || r.operator === 'in') || r.values.length !== 1) return undefined;
      return r.values[0];
    },
    toString: () => requirements.map(requirementString).join(','),
  };
}

export const everything = (): LabelSelector => labelSelectorOf([]);
export const nothing = (): LabelSelector => labelSelectorOf([], false);

// ---- the lexer and parser of upstream's label selector grammar ----

type Tok = 'err' | 'eos' | ')' | ',' | '!' | '==' | '=' | '>' | 'id' | 'in' | '<' | '!=' | 'notin' | '(';
interface Item {
  tok: Tok;
  lit: string;
}
const LITERALS: Readonly<Record<string, Tok>> = { ')': ')', ',': ',', '!': '!', '==': '==', '=': '=', '>': '>', in: 'in', '<': '<', '!=': '!=', notin: 'notin', '(': '(' };
const isWs = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string): boolean => '=!(),><'.includes(c);

function lex(s: string): Item[] {
  const out: Item[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWs(s[pos]!)) pos++;
    if (pos >= s.length) {
      out.push({ tok: 'eos', lit: '' });
      return out;
    }
    if (isSpecial(s[pos]!)) {
      // Longest special-symbol run that still names an operator, as upstream's scanSpecialSymbol.
      let buf = '';
      let last: Item | undefined;
      while (pos < s.length && isSpecial(s[pos]!)) {
        buf += s[pos]!;
        const t = LITERALS[buf];
        if (t !== undefined) last = { tok: t, lit: buf };
        else if (last !== undefined) break;
        pos++;
      }
      out.push(last ?? { tok: 'err', lit: `error expected: keyword found '${buf}'` });
      continue;
    }
    let buf = '';
    while (pos < s.length && !isSpecial(s[pos]!) && !isWs(s[pos]!)) buf += s[pos++]!;
    out.push({ tok: LITERALS[buf] ?? 'id', lit: buf });
  }
}

class Parser {
  private i = 0;
  constructor(private readonly items: readonly Item[]) {}
  /** In value position `in`/`notin` are identifiers (`x in (in)`). */
  peek(values: boolean): Item {
    const it = this.items[Math.min(this.i, this.items.length - 1)]!;
    return values && (it.tok === 'in' || it.tok === 'notin') ? { tok: 'id', lit: it.lit } : it;
  }
  next(values: boolean): Item {
    const it = this.peek(values);
    this.i++;
    return it;
  }
}

const fail = (msg: string): never => {
  throw apiErrors.badRequest(msg);
};

function parseRequirement(p: Parser): Requirement {
  let t = p.next(true);
  let op: LabelOperator | undefined;
  if (t.tok === '!') {
    op = '!';
    t = p.next(true);
  }
  if (t.tok !== 'id') fail(`found '${t.lit}', expected: identifier`);
  const key = t.lit;
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length > 0) fail(invalidMessage('<nil>', key, keyErrs.join('; ')));
  // `!key` never takes an operator; whatever follows is the caller's problem.
  const la = p.peek(true).tok;
  if (op === '!' || la === 'eos' || la === ',') return newRequirement(key, op ?? 'exists', []);
  const o = p.next(false);
  const opMap: Partial<Record<Tok, LabelOperator>> = { in: 'in', notin: 'notin', '=': '=', '==': '==', '!=': '!=', '>': 'gt', '<': 'lt' };
  const operator = opMap[o.tok];
  if (operator === undefined) return fail(`found '${o.lit}', expected: ${BINARY_OPERATORS}`);
  const values = operator === 'in' || operator === 'notin' ? parseValues(p) : parseExactValue(p);
  return newRequirement(key, operator, [...new Set(values)].sort());
}

function parseValues(p: Parser): string[] {
  const open = p.next(true);
  if (open.tok !== '(') fail(`found '${open.lit}' expected: '('`);
  const first = p.peek(true);
  if (first.tok === ')') {
    p.next(true);
    return [''];
  }
  if (first.tok !== 'id' && first.tok !== ',') return fail(`found '${first.lit}', expected: ',', ')' or identifier`);
  const set = new Set<string>();
  // Each pass consumes a token and the token list ends with 'eos', which fails: the loop ends.
  for (;;) {
    const t = p.next(true);
    if (t.tok === 'id') {
      set.add(t.lit);
      const la = p.peek(true);
      if (la.tok === ',') continue;
      if (la.tok === ')') break;
      fail(`found '${la.lit}', expected: ',' or ')'`);
    } else if (t.tok === ',') {
      if (set.size === 0) set.add('');
      const la = p.peek(true);
      if (la.tok === ')') {
        set.add('');
        break;
      }
      if (la.tok === ',') {
        p.next(true);
        set.add('');
      }
    } else fail(`found '${t.lit}', expected: ',', or identifier`);
  }
  const close = p.next(true);
  if (close.tok !== ')') fail(`found '${first.lit}', expected: ')'`);
  return [...set];
}

function parseExactValue(p: Parser): string[] {
  const la = p.peek(true);
  if (la.tok === 'eos' || la.tok === ',') return [''];
  const t = p.next(true);
  if (t.tok === 'id') return [t.lit];
  return fail(`found '${t.lit}', expected: identifier`);
}

/**
 * Parses `labelSelector` text; '' selects everything. Throws a 400 ApiError
 * with upstream's message (`unable to parse requirement: ...`, `found ',',
 * expected: ...`).
 */
export function parseLabelSelector(text: string): LabelSelector {
  const p = new Parser(lex(text));
  const reqs: Requirement[] = [];
  for (;;) {
    const t = p.peek(true);
    if (t.tok === 'eos') break;
    if (t.tok !== 'id' && t.tok !== '!') fail(`found '${t.lit}', expected: !, identifier, or 'end of string'`);
    try {
      reqs.push(parseRequirement(p));
    } catch (e) {
      if (e instanceof ApiError) throw apiErrors.badRequest(`unable to parse requirement: ${e.message}`);
      throw e;
    }
    const after = p.next(true);
    if (after.tok === 'eos') break;
    if (after.tok !== ',') fail(`found '${after.lit}', expected: ',' or 'end of string'`);
    const la = p.peek(true);
    if (la.tok !== 'id' && la.tok !== '!') fail(`found '${la.lit}', expected: identifier after ','`);
  }
  return labelSelectorOf(reqs);
}

const OBJECT_OPERATORS: Readonly<Record<string, LabelOperator>> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * upstream's LabelSelectorAsSelector: null/undefined selects nothing, an
 * empty object everything; a bad expression is a 400 with upstream's text.
 */
export function labelSelectorFromObject(obj: LabelSelectorObject | null | undefined): LabelSelector {
  if (obj === null || obj === undefined) return nothing();
  const reqs: Requirement[] = [];
  for (const [k, v] of Object.entries(obj.matchLabels ?? {})) reqs.push(newRequirement(k, '=', [v]));
  for (const e of obj.matchExpressions ?? []) {
    const op = OBJECT_OPERATORS[e.operator];
    if (op === undefined) fail(`${JSON.stringify(e.operator)} is not a valid label selector operator`);
    reqs.push(newRequirement(e.key, op!, e.values ?? []));
  }
  return labelSelectorOf(reqs);
}

export { parseFieldSelector, fieldSelectorOf, unsupportedFieldError, checkFieldsSupported } from './field-selector.js';
export type { FieldSelector, FieldTerm } from './field-selector.js';
