// §5 rule 4: creating or updating a ClusterTrustBundle that names a signer
// needs `attest` on `signers` (group certificates.platform.io) for that signer
// name, or for `<domain>/*` (upstream's ctbattest plugin and
// IsAuthorizedForSignerName). An update that changes neither the signer nor
// the bundle (metadata only) is not checked. Calls the injected authorizer
// (the server's chain); may await it.
import type { ApiError } from '../../api/errors.js';
import { apiErrors } from '../../api/errors.js';
import type { AuthorizationAttributes, Authorizer, UserInfo } from '../types.js';

export const CERTIFICATES_GROUP = 'certificates.platform.io';

interface BundleLike {
  metadata?: { name?: string };
  spec?: { signerName?: unknown; trustBundle?: unknown };
}

function signerAttributes(user: UserInfo, verb: string, name: string): AuthorizationAttributes {
  return { user, verb, isResourceRequest: true, path: '', apiGroup: CERTIFICATES_GROUP, apiVersion: '*', namespace: '', resource: 'signers', subresource: '', name };
}

/** Allowed for the exact signer name, or for the wildcard of its domain. */
export async function isAuthorizedForSignerName(authz: Authorizer, user: UserInfo, verb: string, signerName: string): Promise<boolean> {
  if ((await authz.authorize(signerAttributes(user, verb, signerName))).allowed) return true;
  const slash = signerName.indexOf('/');
  if (slash < 0) return false;
  return (await authz.authorize(signerAttributes(user, verb, `${signerName.slice(0, slash)}/*`))).allowed;
}

/** The 403 for a create (old undefined) or update the user may not make, or undefined. */
export async function admitClusterTrustBundle(authz: Authorizer, user: UserInfo, obj: BundleLike, old: BundleLike | undefined): Promise<ApiError | undefined> {
  const signer = typeof obj.spec?.signerName === 'string' ? obj.spec.signerName : '';
  if (signer === '') return undefined;
  if (old !== undefined && old.spec?.signerName === obj.spec?.signerName && old.spec?.trustBundle === obj.spec?.trustBundle) return undefined;
  if (await isAuthorizedForSignerName(authz, user, 'attest', signer)) return undefined;
  return apiErrors.forbidden({ group: CERTIFICATES_GROUP, resource: 'clustertrustbundles' }, obj.metadata?.name ?? '', `user not permitted to attest for signerName ${JSON.stringify(signer)}`);
}
