// 403 unless an authorizer of the chain allows the request. The chain is
// upstream's union: the first authorizer with an opinion decides; no opinion
// from any of them is a deny. Until RBAC lands the composition root passes
// mastersOnly (system:masters allowed, everyone else denied).
import { apiErrors, type ApiError } from '../../../api/errors.js';
import { mastersAuthorizer } from '../../authz/chain.js';
import { forbiddenError } from '../../authz/message.js';
import type { AuthorizationAttributes, Authorizer, Decision } from '../../types.js';
import type { Filter } from '../context.js';
import { PUBLIC_PATHS } from './authentication.js';

/** Allows members of system:masters; no opinion on anyone else. */
export const mastersOnly: Authorizer = mastersAuthorizer;

export async function authorizeWith(chain: readonly Authorizer[], attrs: AuthorizationAttributes): Promise<Decision> {
  const reasons: string[] = [];
  for (const a of chain) {
    const d = await a.authorize(attrs);
    if (d.allowed) return d;
    if (d.reason !== '') reasons.push(d.reason);
    if (!d.noOpinion) return { allowed: false, reason: reasons.join(', '), noOpinion: false };
  }
  return { allowed: false, reason: reasons.join(', '), noOpinion: true };
}

/** The 403 Status upstream sends: `<resource> "<name>" is forbidden: <message>[: <reason>]`, or `forbidden: ...` for a path. */
export const forbidden = (a: AuthorizationAttributes, reason: string): ApiError => forbiddenError(a, reason);

export function withAuthorization(chain: readonly Authorizer[]): Filter {
  return async (ctx, next) => {
    if (PUBLIC_PATHS.has(ctx.url.pathname)) return next();
    const user = ctx.user;
    if (user === undefined) throw apiErrors.unauthorized();
    const { info } = ctx;
    const attrs: AuthorizationAttributes = {
      user,
      verb: info.verb,
      isResourceRequest: info.isResourceRequest,
      path: info.path,
      apiGroup: info.apiGroup,
      apiVersion: info.apiVersion,
      namespace: info.namespace,
      resource: info.resource,
      subresource: info.subresource,
      name: info.name,
    };
    const d = await authorizeWith(chain, attrs);
    if (!d.allowed) throw forbidden(attrs, d.reason);
    return next();
  };
}
