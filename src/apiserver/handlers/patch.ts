// PATCH (spec §4.12 rule 2): the Content-Type picks JSON Patch, JSON merge
// patch or strategic merge patch; the patch is applied to the current object
// inside the store's guaranteed update (read, apply, compare-and-swap,
// retry), so concurrent writers never lose each other's changes. A
// resourceVersion carried in the patch is a precondition (rule 4: 409 when
// stale). The result passes the same field validation as a PUT body.
import { apiErrors } from '../../api/errors.js';
import { parseWriteQuery, type FieldValidation } from '../../api/list-query.js';
import { PATCH_APPLY, negotiateInput } from '../../api/media.js';
import { applyPatch, type JsonObject, type JsonPatchType } from '../../api/patch/index.js';
import type { ApiObject } from '../registry/types.js';
import { applyConfig } from '../apply/apply.js';
import { recordUpdate } from '../apply/update.js';
import { isNotFound } from '../../api/errors.js';
import { MEDIA_YAML } from '../../api/media.js';
import { admit } from './admit.js';
import { checkFields, headerValue } from './body.js';
import { tracking, type FieldTracking } from './fields.js';
import { updateSubresource, type RequestContext } from './context.js';
import { sendObject } from './respond.js';

export async function handlePatch(ctx: RequestContext): Promise<void> {
  const input = negotiateInput(headerValue(ctx.req.headers['content-type']), true);
  if (input.kind !== 'patch') throw apiErrors.badRequest('not a patch');
  const patchType = input.patchType;
  const q = parseWriteQuery(ctx.req.url.searchParams, 'patch', patchType === PATCH_APPLY);
  const body = await ctx.req.body();
  const subresource = updateSubresource(ctx);
  const t = tracking(ctx, q.fieldManager);
  if (patchType === PATCH_APPLY) {
    await serverSideApply(ctx, body, { force: q.force, dryRun: q.dryRun, validation: q.fieldValidation, tracking: t }, subresource);
    return;
  }
  const result = await ctx.entry.store.guaranteedUpdate(
    ctx.info.namespace,
    ctx.info.name,
    async (current) => {
      // A resourceVersion the patch carries is checked by guaranteedUpdate (409 when stale, §4.12 rule 4).
      const patched = applyPatch(patchType as JsonPatchType, current as unknown as JsonObject, body) as unknown as ApiObject;
      const next = recordUpdate(current, revalidate(ctx, patched, q.fieldValidation), t) as unknown as ApiObject;
      await admit(ctx, next, current, q.dryRun);
      return next;
    },
    { dryRun: q.dryRun, subresource },
  );
  sendObject(ctx.answer, 200, result, ctx.gvk);
}

/** The patched object through the codec's schema: unknown fields dropped, warned about or refused as for a PUT. */
function revalidate(ctx: RequestContext, patched: ApiObject, validation: FieldValidation): ApiObject {
  const decoded = ctx.deps.wire.decodeBody(Buffer.from(JSON.stringify(patched)), 'application/json', ctx.gvk);
  if (decoded.typeErrors.length > 0) throw apiErrors.invalid({ group: ctx.gvk.group, kind: ctx.gvk.kind }, ctx.info.name, decoded.typeErrors);
  checkFields(ctx, ctx.gvk, decoded, validation);
  return decoded.object;
}

/**
 * Server-side apply (spec §4.12 rule 3): the body (YAML or JSON) is the
 * manager's whole intent for the object; merged into the current object
 * (409 on fields other managers own, unless force), or the object is created.
 */
async function serverSideApply(ctx: RequestContext, body: Buffer, opts: { force: boolean; dryRun: boolean; validation: FieldValidation; tracking: FieldTracking }, subresource: string): Promise<void> {
  const config = ctx.deps.wire.decodeBody(body, MEDIA_YAML, ctx.gvk);
  checkFields(ctx, ctx.gvk, config, opts.validation);
  const bodyName = config.object.metadata?.name ?? '';
  if (bodyName !== '' && bodyName !== ctx.info.name) throw apiErrors.badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${ctx.info.name})`);
  const t = opts.tracking;
  const applyOpts = { manager: t.manager, force: opts.force, apiVersion: t.apiVersion, now: t.now, subresource, listTypes: t.listTypes };
  try {
    const tryApply = async (current: ApiObject): Promise<ApiObject> => {
      const next = applyConfig(current, config.object, applyOpts) as unknown as ApiObject;
      await admit(ctx, next, current, opts.dryRun);
      return next;
    };
    const result = await ctx.entry.store.guaranteedUpdate(ctx.info.namespace, ctx.info.name, tryApply, { dryRun: opts.dryRun, subresource });
    sendObject(ctx.answer, 200, result, ctx.gvk);
  } catch (e) {
    if (!isNotFound(e) || subresource !== '') throw e;
    const fresh = applyConfig(undefined, config.object, applyOpts) as unknown as ApiObject;
    fresh.metadata.name = ctx.info.name;
    await admit(ctx, fresh, undefined, opts.dryRun);
    const created = await ctx.entry.store.create(ctx.info.namespace, fresh, { dryRun: opts.dryRun });
    sendObject(ctx.answer, 201, created, ctx.gvk);
  }
}
