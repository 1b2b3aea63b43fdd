// Query strings and DeleteOptions bodies of the verbs, and the option checks
// the client makes before sending (§4.13: it never sends an Invalid
// combination). Pure: called once per request; a failed check throws the
// ApiStatusError the server would have answered, naming the request.
import { apiErrors, type ApiError, type FieldError } from '../../api/errors.js';
import { PATCH_APPLY, type PatchType } from '../../api/media.js';
import { listOptionsErrors, watchOptionsErrors, type VersionQuery } from '../../api/resource-version.js';
import { ApiStatusError, type RequestRef } from '../errors.js';
import type { DeleteOptions, ListOptions, PatchOptions, WatchOptions, WriteOptions } from '../types.js';

const META_GROUP = 'meta.platform.io';

/** The server's error, raised here instead of sent for. */
export const localError = (ref: RequestRef, err: ApiError): ApiStatusError => new ApiStatusError(ref, err.status(), undefined);

const invalid = (kind: string, errs: readonly FieldError[]): ApiError => apiErrors.invalid({ group: META_GROUP, kind }, '', errs);

function versionQuery(o: { resourceVersion?: string; resourceVersionMatch?: string; limit?: number; continue?: string; sendInitialEvents?: boolean }): VersionQuery {
  return { resourceVersion: o.resourceVersion ?? '', resourceVersionMatch: o.resourceVersionMatch ?? '', limit: o.limit ?? 0, continue: o.continue ?? '', sendInitialEvents: o.sendInitialEvents };
}

const setIf = (q: URLSearchParams, name: string, v: string | number | boolean | undefined): void => {
  if (v === undefined || v === '') return;
  q.set(name, String(v));
};

/**
 * A list's query (§4.4 list set). Throws the 422 Invalid ListOptions of the
 * table's Invalid cells and the 400 of a version together with a continue
 * token; a `0` with a token (Invalid, though the server reads it as the
 * token's Exact) is left out, which means the same.
 */
export function listQuery(ref: RequestRef, o: ListOptions): URLSearchParams {
  const vq = versionQuery(o);
  const errs = listOptionsErrors(vq);
  if (errs.length > 0) throw localError(ref, invalid('ListOptions', errs));
  if (vq.continue !== '' && vq.resourceVersion !== '' && vq.resourceVersion !== '0') {
    throw localError(ref, apiErrors.badRequest('specifying resource version is not allowed when using continue'));
  }
  if (o.limit !== undefined && (!Number.isInteger(o.limit) || o.limit < 0)) {
    throw localError(ref, invalid('ListOptions', [{ type: 'FieldValueInvalid', field: 'limit', value: o.limit, detail: 'must be a non-negative integer' }]));
  }
  const q = new URLSearchParams();
  setIf(q, 'labelSelector', o.labelSelector);
  setIf(q, 'fieldSelector', o.fieldSelector);
  if (vq.continue === '') {
    setIf(q, 'resourceVersion', o.resourceVersion);
    setIf(q, 'resourceVersionMatch', o.resourceVersionMatch);
  }
  if (o.limit !== undefined && o.limit > 0) q.set('limit', String(o.limit));
  setIf(q, 'continue', o.continue);
  return q;
}

/**
 * A watch's query. The client cannot know the server's WatchList gate, so it
 * checks everything but the gate (the server's 422 for a gate that is off is
 * what an informer falls back on, as client-go does).
 */
export function watchQuery(ref: RequestRef, o: WatchOptions): URLSearchParams {
  const errs = watchOptionsErrors(versionQuery(o), true);
  if (errs.length > 0) throw localError(ref, invalid('ListOptions', errs));
  if (o.timeoutSeconds !== undefined && (!Number.isInteger(o.timeoutSeconds) || o.timeoutSeconds < 0)) {
    throw localError(ref, invalid('ListOptions', [{ type: 'FieldValueInvalid', field: 'timeoutSeconds', value: o.timeoutSeconds, detail: 'must be a non-negative integer' }]));
  }
  const q = new URLSearchParams({ watch: 'true' });
  setIf(q, 'labelSelector', o.labelSelector);
  setIf(q, 'fieldSelector', o.fieldSelector);
  setIf(q, 'resourceVersion', o.resourceVersion);
  setIf(q, 'resourceVersionMatch', o.resourceVersionMatch);
  if (o.allowWatchBookmarks === true) q.set('allowWatchBookmarks', 'true');
  if (o.sendInitialEvents !== undefined) q.set('sendInitialEvents', String(o.sendInitialEvents));
  setIf(q, 'timeoutSeconds', o.timeoutSeconds);
  return q;
}

/**
 * The write set of POST, PUT and PATCH (+ `force` for apply). An apply
 * without `fieldManager`, or `force` on another patch type, is the server's
 * 422 Invalid PatchOptions, raised here.
 */
export function writeQuery(ref: RequestRef, o: WriteOptions & Partial<Pick<PatchOptions, 'force'>>, patchType?: PatchType): URLSearchParams {
  const apply = patchType === PATCH_APPLY;
  const errs: FieldError[] = [];
  if (apply && (o.fieldManager ?? '') === '') errs.push({ type: 'FieldValueRequired', field: 'fieldManager', detail: 'is required for apply patch' });
  if (o.force !== undefined && !apply) errs.push({ type: 'FieldValueForbidden', field: 'force', detail: 'may not be specified for non-apply patch' });
  if (errs.length > 0) throw localError(ref, invalid(patchType === undefined ? 'CreateOptions' : 'PatchOptions', errs));
  const q = new URLSearchParams();
  if (o.dryRun === true) q.set('dryRun', 'All');
  setIf(q, 'fieldManager', o.fieldManager);
  setIf(q, 'fieldValidation', o.fieldValidation);
  if (apply && o.force !== undefined) q.set('force', String(o.force));
  return q;
}

/** The DeleteOptions body (JSON: the server reads DELETE bodies as JSON only); undefined when there is nothing to say. */
export function deleteBody(apiVersion: string, o: DeleteOptions): string | undefined {
  const body: Record<string, unknown> = {};
  if (o.gracePeriodSeconds !== undefined) body['gracePeriodSeconds'] = o.gracePeriodSeconds;
  if (o.propagationPolicy !== undefined) body['propagationPolicy'] = o.propagationPolicy;
  const pre = o.preconditions;
  if (pre !== undefined && (pre.uid !== undefined || pre.resourceVersion !== undefined)) {
    body['preconditions'] = { ...(pre.uid === undefined ? {} : { uid: pre.uid }), ...(pre.resourceVersion === undefined ? {} : { resourceVersion: pre.resourceVersion }) };
  }
  if (o.dryRun === true) body['dryRun'] = ['All'];
  if (Object.keys(body).length === 0) return undefined;
  return JSON.stringify({ kind: 'DeleteOptions', apiVersion, ...body });
}

/** Whether a repeat of this DELETE is harmless: a precondition stops it from deleting a newer object of the same name. */
export const deleteIsGuarded = (o: DeleteOptions): boolean => o.preconditions?.uid !== undefined || o.preconditions?.resourceVersion !== undefined;
