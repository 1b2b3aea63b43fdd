// The authorizer chain and the two fixed members around RBAC: the superuser
// group (upstream's privileged-group authorizer for system:masters) and the
// union that asks each member in turn. Pure apart from the members' lookups.
import type { AuthorizationAttributes, Authorizer, Decision } from '../types.js';

import { SYSTEM_MASTERS } from '../authn/types.js';

export { SYSTEM_MASTERS };

/** Allows everything for members of `system:masters`; no opinion for everyone else. */
export const mastersAuthorizer: Authorizer = {
  authorize: (attrs) => Promise.resolve(attrs.user.groups.includes(SYSTEM_MASTERS) ? { allowed: true, reason: '' } : { allowed: false, noOpinion: true, reason: '' }),
};

/**
 * upstream's union authorizer: the first allow or explicit deny wins; when
 * every member has no opinion the request is denied (noOpinion stays true)
 * with the members' reasons joined, which the front appends to its 403.
 */
export function unionAuthorizer(members: readonly Authorizer[]): Authorizer {
  return {
    async authorize(attrs: AuthorizationAttributes): Promise<Decision> {
      const reasons: string[] = [];
      for (const m of members) {
        const d = await m.authorize(attrs);
        if (d.allowed || !d.noOpinion) return d;
        if (d.reason !== '') reasons.push(d.reason);
      }
      return { allowed: false, noOpinion: true, reason: reasons.join(', ') };
    },
  };
}
