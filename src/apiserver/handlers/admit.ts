// Runs the admission port for one write (when the server has one).
import type { ApiObject } from '../registry/types.js';
import type { RequestContext } from './context.js';

export async function admit(ctx: RequestContext, obj: ApiObject, old: ApiObject | undefined, dryRun: boolean): Promise<void> {
  await ctx.deps.admission?.admit(ctx.entry.info, obj, old, { dryRun, user: ctx.req.user, signal: ctx.req.signal, namespace: ctx.info.namespace, subresource: ctx.info.subresource });
}

export async function created(ctx: RequestContext, obj: ApiObject, dryRun: boolean): Promise<void> {
  if (!dryRun) await ctx.deps.admission?.created?.(ctx.entry.info, obj);
}
