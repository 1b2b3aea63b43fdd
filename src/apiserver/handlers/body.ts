// Reading an object from a POST/PUT body: the Content-Type picks the codec
// (415 otherwise), the bytes are decoded against the kind the path expects
// (wrong kind or apiVersion → 400), field types are always checked, and
// unknown or duplicate fields are dropped, warned about or refused per
// `fieldValidation` (spec §4.10).
import { fieldValidationMessages } from '../../api/codec/index.js';
import { apiErrors } from '../../api/errors.js';
import type { FieldValidation } from '../../api/list-query.js';
import { MEDIA_PROTOBUF, negotiateInput } from '../../api/media.js';
import type { ApiObject } from '../registry/types.js';
import type { RequestContext } from './context.js';
import type { GroupVersionKind } from './ports.js';

export const apiVersionString = (gvk: Pick<GroupVersionKind, 'group' | 'version'>): string => (gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`);

/** Upstream's prefix of a decoding failure: `Pod in version "v1" cannot be handled as a Pod: ...`. */
export const cannotHandle = (gvk: Pick<GroupVersionKind, 'kind' | 'version'>, why: string): string => `${gvk.kind} in version ${JSON.stringify(gvk.version)} cannot be handled as a ${gvk.kind}: ${why}`;

/**
 * §4.10 for one decoded body: unknown and duplicate fields refused (Strict,
 * 400 naming all), warned about (Warn, one Warning each) or ignored.
 */
export function checkFields(ctx: RequestContext, gvk: GroupVersionKind, found: { unknownFields: readonly string[]; duplicateFields: readonly string[] }, validation: FieldValidation): void {
  if (validation === 'Ignore') return;
  const problems = fieldValidationMessages(found);
  if (problems.length === 0) return;
  if (validation === 'Strict') throw apiErrors.badRequest(cannotHandle(gvk, `strict decoding error: ${problems.join(', ')}`));
  for (const p of problems) ctx.answer.warnings?.add(p);
}

/**
 * Decodes the request body as an object of `gvk` (the path's kind, or a
 * subresource action's body kind). Warnings for unknown/duplicate fields go
 * to the request's collector under Warn.
 */
export async function readObject(ctx: RequestContext, gvk: GroupVersionKind, validation: FieldValidation): Promise<ApiObject> {
  const input = negotiateInput(headerValue(ctx.req.headers['content-type']), false);
  if (input.kind !== 'object') throw apiErrors.badRequest('a patch body is not an object body');
  const bytes = await ctx.req.body();
  if (bytes.length === 0) throw apiErrors.badRequest(cannotHandle(gvk, 'the request body is empty'));
  const decoded = ctx.deps.wire.decodeBody(bytes, input.mediaType, gvk);
  if (decoded.typeErrors.length > 0) throw apiErrors.badRequest(cannotHandle(gvk, decoded.typeErrors.map((e) => `${e.field}: ${e.detail ?? 'invalid type'}`).join(', ')));
  const obj = decoded.object;
  const expectedVersion = apiVersionString(gvk);
  if (obj.apiVersion !== undefined && obj.apiVersion !== '' && obj.apiVersion !== expectedVersion) {
    throw apiErrors.badRequest(`the API version in the data (${obj.apiVersion}) does not match the expected API version (${expectedVersion})`);
  }
  if (obj.kind !== undefined && obj.kind !== '' && obj.kind !== gvk.kind) throw apiErrors.badRequest(`the kind in the data (${obj.kind}) does not match the expected kind (${gvk.kind})`);
  obj.apiVersion = expectedVersion;
  obj.kind = gvk.kind;
  if (typeof obj.metadata !== 'object' || obj.metadata === null) obj.metadata = {};
  // Protobuf bodies have no unknown fields to report (upstream: strict validation does not apply to them).
  if (input.mediaType !== MEDIA_PROTOBUF) checkFields(ctx, gvk, decoded, validation);
  return obj;
}

export function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
