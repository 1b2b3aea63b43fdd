// 403 unless an authorizer of the chain allows the request. The chain is
// upstream's union: the first authorizer with an opinion decides; no opinion
// from any of them is a deny. Until RBAC lands the composition root passes
// mastersOnly (system:masters allowed, everyone else denied).
import { ApiError, apiErrors } from '../../../api/errors.js';
import { SYSTEM_MASTERS } from '../../authn/types.js';
import type { AuthorizationAttributes, Authorizer, Decision } from '../../types.js';
import type { Filter } from '../context.js';
import { PUBLIC_PATHS } from './authentication.js';

/** Allows members of system:masters; no opinion on anyone else. */
export const mastersOnly: Authorizer = {
  authorize: (a) => Promise.resolve(a.user.groups.includes(SYSTEM_MASTERS) ? { allowed: true, reason: '' } : { allowed: false, reason: '', noOpinion: true }),
};

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

/** upstream's forbiddenMessage: what the user may not do, where. */
export function forbiddenMessage(a: AuthorizationAttributes): string {
  const user = JSON.stringify(a.user.name);
  if (!a.isResourceRequest) return `User ${user} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
  const resource = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
  const where = a.namespace === '' ? 'at the cluster scope' : `in the namespace ${JSON.stringify(a.namespace)}`;
  return `User ${user} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.apiGroup)} ${where}`;
}

/** The 403 Status upstream sends: `<resource> "<name>" is forbidden: <message>[: <reason>]`, or `forbidden: ...` for a path. */
export function forbidden(a: AuthorizationAttributes, reason: string): ApiError {
  const why = reason === '' ? forbiddenMessage(a) : `${forbiddenMessage(a)}: ${reason}`;
  if (!a.isResourceRequest || a.resource === '') return new ApiError(403, 'Forbidden', `forbidden: ${why}`, { details: {} });
  return apiErrors.forbidden({ group: a.apiGroup, resource: a.resource }, a.name, why);
}

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
