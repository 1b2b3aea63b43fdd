// PATCH (spec §4.12 rule 2): the Content-Type picks JSON Patch, JSON merge
// patch or strategic merge patch; the patch is applied to the current object
// inside the store's guaranteed update (read, apply, compare-and-swap,
// retry), so concurrent writers never lose each other's changes. A
// resourceVersion carried in the patch is a precondition (rule 4: 409 when
// stale). The result passes the same field validation as a PUT body.
import { apiErrors } from '../../api/errors.js';
import { parseWriteQuery, type FieldValidation } from '../../api/list-query.js';
import { PATCH_APPLY, PATCH_JSON, PATCH_MERGE, PATCH_STRATEGIC, negotiateInput } from '../../api/media.js';
import { applyPatch, type JsonObject, type JsonPatchType } from '../../api/patch/index.js';
import type { ApiObject } from '../registry/types.js';
import { headerValue } from './body.js';
import type { RequestContext } from './context.js';
import { sendObject } from './respond.js';

export async function handlePatch(ctx: RequestContext): Promise<void> {
  const input = negotiateInput(headerValue(ctx.req.headers['content-type']), true);
  if (input.kind !== 'patch') throw apiErrors.badRequest('not a patch');
  const patchType = input.patchType;
  const q = parseWriteQuery(ctx.req.url.searchParams, 'patch', patchType === PATCH_APPLY);
  if (patchType === PATCH_APPLY) throw apiErrors.unsupportedMediaType(PATCH_APPLY, [PATCH_JSON, PATCH_MERGE, PATCH_STRATEGIC]);
  const body = await ctx.req.body();
  const subresource = ctx.info.subresource === 'status' ? 'status' : '';
  const result = await ctx.entry.store.guaranteedUpdate(
    ctx.info.namespace,
    ctx.info.name,
    (current) => {
      const patched = applyPatch(patchType as JsonPatchType, current as unknown as JsonObject, body) as unknown as ApiObject;
      const wanted = patched.metadata?.resourceVersion;
      if (wanted !== undefined && wanted !== '' && wanted !== current.metadata.resourceVersion) throw apiErrors.conflict({ group: ctx.info.apiGroup, resource: ctx.info.resource }, ctx.info.name);
      return revalidate(ctx, patched, q.fieldValidation);
    },
    { dryRun: q.dryRun, subresource },
  );
  sendObject(ctx.answer, 200, result, ctx.gvk);
}

/** The patched object through the codec's schema: unknown fields dropped, warned about or refused as for a PUT. */
function revalidate(ctx: RequestContext, patched: ApiObject, validation: FieldValidation): ApiObject {
  const decoded = ctx.deps.wire.decodeBody(Buffer.from(JSON.stringify(patched)), 'application/json', ctx.gvk);
  if (decoded.typeErrors.length > 0) throw apiErrors.invalid({ group: ctx.gvk.group, kind: ctx.gvk.kind }, ctx.info.name, decoded.typeErrors);
  if (validation !== 'Ignore' && decoded.unknownFields.length > 0) {
    const problems = decoded.unknownFields.map((f) => `unknown field ${JSON.stringify(f)}`);
    if (validation === 'Strict') throw apiErrors.badRequest(`${ctx.gvk.kind} in version ${JSON.stringify(ctx.gvk.version)} cannot be handled as a ${ctx.gvk.kind}: strict decoding error: ${problems.join(', ')}`);
    for (const p of problems) ctx.answer.warnings?.add(p);
  }
  return decoded.object;
}
