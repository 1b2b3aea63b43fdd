// The 403 the front sends when authorization does not allow a request, in
// kube-apiserver's words (responsewriters.Forbidden + errors.NewForbidden):
// `pods "p" is forbidden: User "u" cannot get resource "pods" in API group ""
// in the namespace "ns"`, `... at the cluster scope` for cluster-scoped
// requests, `forbidden: User "u" cannot get path "/x"` for non-resource paths.
import { ApiError } from '../../api/errors.js';
import type { AuthorizationAttributes } from '../types.js';

/** The `User ... cannot ...` part, with the authorizer's reason after `: ` when there is one. */
export function forbiddenReason(attrs: AuthorizationAttributes, reason = ''): string {
  const user = JSON.stringify(attrs.user.name);
  let msg: string;
  if (!attrs.isResourceRequest) msg = `User ${user} cannot ${attrs.verb} path ${JSON.stringify(attrs.path)}`;
  else {
    const resource = attrs.subresource === '' ? attrs.resource : `${attrs.resource}/${attrs.subresource}`;
    const scope = attrs.namespace === '' ? 'at the cluster scope' : `in the namespace ${JSON.stringify(attrs.namespace)}`;
    msg = `User ${user} cannot ${attrs.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(attrs.apiGroup)} ${scope}`;
  }
  return reason === '' ? msg : `${msg}: ${reason}`;
}

/** The whole Status message of the 403. */
export function forbiddenMessage(attrs: AuthorizationAttributes, reason = ''): string {
  const why = forbiddenReason(attrs, reason);
  if (!attrs.isResourceRequest || attrs.resource === '') return `forbidden: ${why}`;
  const qualified = attrs.apiGroup === '' ? attrs.resource : `${attrs.resource}.${attrs.apiGroup}`;
  return attrs.name === '' ? `${qualified} is forbidden: ${why}` : `${qualified} ${JSON.stringify(attrs.name)} is forbidden: ${why}`;
}

/** The ApiError (403 Forbidden) for a denied request. */
export function forbiddenError(attrs: AuthorizationAttributes, reason = ''): ApiError {
  const isRes = attrs.isResourceRequest && attrs.resource !== '';
  return new ApiError(403, 'Forbidden', forbiddenMessage(attrs, reason), { details: isRes ? { name: attrs.name, group: attrs.apiGroup, kind: attrs.resource } : {} });
}
