// The query parameter sets of §4.4 (list set, write set, delete options)
// parsed from URLSearchParams into typed values, as upstream's parameter
// codec parses them: booleans are false only for `0`/`false` (any other
// value, even empty, is true), integers are Go ParseInt (a bad one is a 400
// naming the parameter), and option values outside their sets are 422
// Invalid `<Verb>Options.meta.platform.io`. Pure; called once per request
// by the front before the verb handler runs.
import { apiErrors, type FieldError } from './errors.js';
import { parseFieldSelector, parseLabelSelector, type FieldSelector, type LabelSelector } from './selectors.js';
import type { VersionQuery } from './resource-version.js';

const META_GROUP = 'meta.platform.io';
const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

/** Go's strconv.ParseBool-free rule of the query codec: absent → undefined. */
export function queryBool(params: URLSearchParams, name: string): boolean | undefined {
  const v = params.get(name);
  if (v === null) return undefined;
  return !(v === '0' || v.toLowerCase() === 'false');
}

/** An int64 query parameter; absent → undefined; bad → 400 naming it. */
export function queryInt(params: URLSearchParams, name: string): number | undefined {
  const v = params.get(name);
  if (v === null) return undefined;
  let why: string | undefined;
  if (!/^[+-]?\d+$/.test(v)) why = 'invalid syntax';
  else {
    const n = BigInt(v);
    if (n > INT64_MAX || n < INT64_MIN) why = 'value out of range';
  }
  if (why !== undefined) {
    const message = `strconv.ParseInt: parsing ${JSON.stringify(v)}: ${why}`;
    throw apiErrors.badRequest(`${name}: ${message}`, [{ reason: 'FieldValueInvalid', message, field: name }]);
  }
  return Number(v);
}

const str = (params: URLSearchParams, name: string): string => params.get(name) ?? '';

/**
 * `pretty` as upstream reads it (Go strconv.ParseBool: 1/t/true → true,
 * anything else false); undefined when absent or empty, where the front
 * falls back to the user agent (wantsPretty in media.ts).
 */
export function queryPretty(params: URLSearchParams): boolean | undefined {
  const v = params.get('pretty');
  if (v === null || v === '') return undefined;
  return ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v);
}

export interface ListQuery extends VersionQuery {
  watch: boolean;
  allowWatchBookmarks: boolean;
  labelSelector: LabelSelector;
  fieldSelector: FieldSelector;
  /** undefined: the server picks (watch: a random value in [min, 2×min)). */
  timeoutSeconds: number | undefined;
  pretty: boolean | undefined;
}

export interface ListQueryOptions {
  /** Gate APIListChunking: when off, `limit` and `continue` are ignored. */
  listChunking: boolean;
}

/**
 * The list set (also used for watch and deletecollection). Selector syntax
 * errors are 400s with upstream's text; the §4.13 rules are checked later by
 * classifyList/classifyWatch on the returned value.
 */
export function parseListQuery(params: URLSearchParams, opts: ListQueryOptions = { listChunking: true }): ListQuery {
  const limit = queryInt(params, 'limit') ?? 0;
  return {
    watch: queryBool(params, 'watch') ?? false,
    allowWatchBookmarks: queryBool(params, 'allowWatchBookmarks') ?? false,
    sendInitialEvents: queryBool(params, 'sendInitialEvents'),
    resourceVersion: str(params, 'resourceVersion'),
    resourceVersionMatch: str(params, 'resourceVersionMatch'),
    limit: opts.listChunking && limit > 0 ? limit : 0,
    continue: opts.listChunking ? str(params, 'continue') : '',
    labelSelector: parseLabelSelector(str(params, 'labelSelector')),
    fieldSelector: parseFieldSelector(str(params, 'fieldSelector')),
    timeoutSeconds: queryInt(params, 'timeoutSeconds'),
    pretty: queryPretty(params),
  };
}

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';
export type WriteVerb = 'create' | 'update' | 'patch';

export interface WriteQuery {
  dryRun: boolean;
  /** '' when not given (the handler derives one from the user agent). */
  fieldManager: string;
  fieldValidation: FieldValidation;
  /** Only meaningful (and only allowed) for server-side apply. */
  force: boolean;
  pretty: boolean | undefined;
}

const OPTIONS_KIND: Readonly<Record<WriteVerb | 'delete', string>> = { create: 'CreateOptions', update: 'UpdateOptions', patch: 'PatchOptions', delete: 'DeleteOptions' };

function dryRunErrors(params: URLSearchParams): { dryRun: boolean; errs: FieldError[] } {
  const values = params.getAll('dryRun');
  // `?dryRun` with no value counts as All (§4.11).
  const bad = values.filter((v) => v !== 'All' && v !== '');
  if (bad.length > 0) return { dryRun: false, errs: [{ type: 'FieldValueNotSupported', field: 'dryRun', value: values, supported: ['All'] }] };
  return { dryRun: values.length > 0, errs: [] };
}

/** upstream's per-character check (Go unicode.IsPrint; position in bytes). */
function unprintable(fieldManager: string): FieldError[] {
  const errs: FieldError[] = [];
  let pos = 0;
  for (const ch of fieldManager) {
    if (/[\p{C}\p{Zl}\p{Zp}]/u.test(ch) || (/\p{Zs}/u.test(ch) && ch !== ' ')) {
      const hex = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      errs.push({ type: 'FieldValueInvalid', field: 'fieldManager', value: fieldManager, detail: `invalid character U+${hex} (at position ${pos})` });
    }
    pos += Buffer.byteLength(ch, 'utf8');
  }
  return errs;
}

const invalidOptions = (verb: WriteVerb | 'delete', errs: readonly FieldError[]) => apiErrors.invalid({ group: META_GROUP, kind: OPTIONS_KIND[verb] }, '', errs);

/**
 * The write set (+ `force` for patch). `isApply` marks a server-side apply
 * patch: it requires `fieldManager`, and `force` is forbidden otherwise.
 */
export function parseWriteQuery(params: URLSearchParams, verb: WriteVerb, isApply = false): WriteQuery {
  const { dryRun, errs } = dryRunErrors(params);
  const fieldManager = str(params, 'fieldManager');
  if (fieldManager.length > 128) errs.push({ type: 'FieldValueTooLong', field: 'fieldManager', value: fieldManager, detail: 'must have at most 128 bytes' });
  errs.push(...unprintable(fieldManager));
  const fv = params.get('fieldValidation') ?? '';
  if (fv !== '' && fv !== 'Ignore' && fv !== 'Warn' && fv !== 'Strict') errs.push({ type: 'FieldValueNotSupported', field: 'fieldValidation', value: fv, supported: ['', 'Ignore', 'Strict', 'Warn'] });
  const force = queryBool(params, 'force');
  if (verb === 'patch' && isApply && fieldManager === '') errs.push({ type: 'FieldValueRequired', field: 'fieldManager', detail: 'is required for apply patch' });
  if (force !== undefined && !(verb === 'patch' && isApply)) errs.push({ type: 'FieldValueForbidden', field: 'force', detail: 'may not be specified for non-apply patch' });
  if (errs.length > 0) throw invalidOptions(verb, errs);
  return { dryRun, fieldManager, fieldValidation: fv === '' ? 'Warn' : (fv as FieldValidation), force: force ?? false, pretty: queryPretty(params) };
}

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

export interface DeleteQuery {
  dryRun: boolean;
  gracePeriodSeconds: number | undefined;
  propagationPolicy: PropagationPolicy | undefined;
  pretty: boolean | undefined;
}

/** DELETE's query options (a DeleteOptions body, when sent, is merged over these by the handler). */
export function parseDeleteQuery(params: URLSearchParams): DeleteQuery {
  const { dryRun, errs } = dryRunErrors(params);
  const gracePeriodSeconds = queryInt(params, 'gracePeriodSeconds');
  const pp = params.get('propagationPolicy');
  if (pp !== null && pp !== 'Orphan' && pp !== 'Background' && pp !== 'Foreground') {
    errs.push({ type: 'FieldValueNotSupported', field: 'propagationPolicy', value: pp, supported: ['Foreground', 'Background', 'Orphan', 'nil'] });
  }
  if (errs.length > 0) throw invalidOptions('delete', errs);
  return { dryRun, gracePeriodSeconds, propagationPolicy: (pp ?? undefined) as PropagationPolicy | undefined, pretty: queryPretty(params) };
}
