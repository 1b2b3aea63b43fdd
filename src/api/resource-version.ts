// The resourceVersion rules of §4.13 as one pure classification per verb:
// what a get, a list or a watch must read, decided from the query alone,
// before any storage is touched. The registry calls these once per request;
// the agent's client uses them in tests to know what a request means. Errors
// are ApiErrors with upstream's messages (400 for a non-numeric version or
// a version together with a continue token; 422 Invalid ListOptions for the
// table's Invalid cells).
import { ApiError, apiErrors, type FieldError } from './errors.js';

/** Parsed numeric form of a resourceVersion; '' and '0' are 0. */
export function parseResourceVersion(rv: string): number {
  if (rv === '' || rv === '0') return 0;
  let why: string | undefined;
  if (!/^\d+$/.test(rv)) why = 'invalid syntax';
  else if (BigInt(rv) > 18446744073709551615n) why = 'value out of range';
  if (why !== undefined) {
    throw apiErrors.badRequest(`invalid resource version: resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: ${why}`);
  }
  return Number(rv);
}

export type GetSemantic = { kind: 'MostRecent' } | { kind: 'Any' } | { kind: 'NotOlderThan'; rv: number };

/** Get: unset = Most Recent; `0` = Any; other = Not older than. */
export function classifyGet(resourceVersion: string): GetSemantic {
  if (resourceVersion === '') return { kind: 'MostRecent' };
  if (resourceVersion === '0') return { kind: 'Any' };
  return { kind: 'NotOlderThan', rv: parseResourceVersion(resourceVersion) };
}

export type ListSemantic =
  | { kind: 'MostRecent' }
  | { kind: 'Any' }
  | { kind: 'NotOlderThan'; rv: number }
  | { kind: 'Exact'; rv: number }
  /** Continue Token, Exact: the token (not yet decoded; the store owns its format) carries the version. */
  | { kind: 'Continue'; token: string };

export type WatchSemantic =
  | { kind: 'StartMostRecent' }
  | { kind: 'StartAny' }
  | { kind: 'StartExact'; rv: number }
  /** sendInitialEvents=false without a version: no synthetic events, changes after the current revision. */
  | { kind: 'StartCurrent' }
  /**
   * A streaming list (sendInitialEvents=true): synthetic ADDED events, then
   * the initial-events-end bookmark once synced at least to `rv` (0: any
   * state will do; undefined: a consistent read at request start).
   */
  | { kind: 'StreamingList'; rv: number | undefined };

/** The list/watch inputs of §4.13, as parsed from the query. */
export interface VersionQuery {
  /** '' when unset. */
  resourceVersion: string;
  /** '' when unset. */
  resourceVersionMatch: string;
  /** 0 when unset (or paging is off). */
  limit: number;
  /** '' when unset. */
  continue: string;
  /** undefined when the parameter was not given. */
  sendInitialEvents: boolean | undefined;
}

const LIST_OPTIONS = { group: 'meta.platform.io', kind: 'ListOptions' };
const forbidden = (field: string, detail: string): FieldError => ({ type: 'FieldValueForbidden', field, detail });

function invalidListOptions(errs: readonly FieldError[]): ApiError {
  return apiErrors.invalid(LIST_OPTIONS, '', errs);
}

/** upstream's ValidateListOptions for a list (watch=false). */
export function listOptionsErrors(q: VersionQuery): FieldError[] {
  const errs: FieldError[] = [];
  const match = q.resourceVersionMatch;
  if (match !== '') {
    if (q.resourceVersion === '') errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (q.continue !== '') errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') errs.push({ type: 'FieldValueNotSupported', field: 'resourceVersionMatch', value: match, supported: ['Exact', 'NotOlderThan', ''] });
    if (match === 'Exact' && q.resourceVersion === '0') errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  }
  if (q.sendInitialEvents !== undefined) errs.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return errs;
}

/** upstream's ValidateListOptions for a watch. */
export function watchOptionsErrors(q: VersionQuery, watchListEnabled: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const match = q.resourceVersionMatch;
  if (q.sendInitialEvents !== undefined) {
    if (match !== 'NotOlderThan') errs.push(forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    if (!watchListEnabled) errs.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'));
  }
  if (match !== '') {
    if (q.sendInitialEvents === undefined) errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    if (match !== 'NotOlderThan') errs.push({ type: 'FieldValueNotSupported', field: 'resourceVersionMatch', value: match, supported: ['NotOlderThan'] });
    if (q.continue !== '') errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
  }
  return errs;
}

/**
 * The list table of §4.13, cell by cell; throws the Invalid (422) and 400
 * cells. With a continue token and rv `0` the version is ignored (Invalid,
 * treated as Continue Token, Exact); with any other rv it is a 400.
 */
export function classifyList(q: VersionQuery): ListSemantic {
  const errs = listOptionsErrors(q);
  if (errs.length > 0) throw invalidListOptions(errs);
  const rv = q.resourceVersion;
  if (q.continue !== '') {
    if (rv !== '' && rv !== '0') throw apiErrors.badRequest('specifying resource version is not allowed when using continue');
    return { kind: 'Continue', token: q.continue };
  }
  if (rv === '') return { kind: 'MostRecent' };
  const n = parseResourceVersion(rv);
  if (q.resourceVersionMatch === 'Exact') return { kind: 'Exact', rv: n };
  if (rv === '0') return { kind: 'Any' };
  if (q.resourceVersionMatch === 'NotOlderThan') return { kind: 'NotOlderThan', rv: n };
  return q.limit > 0 ? { kind: 'Exact', rv: n } : { kind: 'NotOlderThan', rv: n };
}

/**
 * Watch by resourceVersion: unset = Start at Most Recent (with synthetic
 * ADDED events), `0` = Start at Any (same), other = Start at Exact; with
 * sendInitialEvents=true (WatchList on) a streaming list. sendInitialEvents
 * =false with NotOlderThan starts at the version without initial events.
 */
export function classifyWatch(q: VersionQuery, watchListEnabled: boolean): WatchSemantic {
  const errs = watchOptionsErrors(q, watchListEnabled);
  if (errs.length > 0) throw invalidListOptions(errs);
  const rv = q.resourceVersion;
  if (q.sendInitialEvents === true) return { kind: 'StreamingList', rv: rv === '' ? undefined : parseResourceVersion(rv) };
  if (q.sendInitialEvents === false) {
    return rv === '' || rv === '0' ? { kind: 'StartCurrent' } : { kind: 'StartExact', rv: parseResourceVersion(rv) };
  }
  if (rv === '') return { kind: 'StartMostRecent' };
  if (rv === '0') return { kind: 'StartAny' };
  return { kind: 'StartExact', rv: parseResourceVersion(rv) };
}
