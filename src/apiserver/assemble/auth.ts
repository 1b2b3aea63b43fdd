// Authentication, authorization and admission of platform-apiserver, built
// over the registry's stores: service-account tokens (issued by
// serviceaccounts/<name>/token, verified on every request), the
// masters → node → RBAC authorizer chain with the bootstrap policy, the
// token and access reviews, and the admission plugins (service accounts,
// node restriction, trust-bundle attest, CSR requester). Wiring only: the
// rules live in authz/, serviceaccount/, admission/ and registry/resources/.
import { ApiError, apiErrors } from '../../api/errors.js';
import { admitClusterTrustBundle } from '../admission/ctb-attest.js';
import { defaultServiceAccount } from '../admission/defaults.js';
import { admitNodeCreate } from '../admission/node-restriction.js';
import { accountGetterFromStore, ServiceAccountAdmission } from '../admission/serviceaccount.js';
import { withAuthenticatedGroup } from '../authn/authenticate.js';
import type { TokenAuthenticator } from '../authn/types.js';
import { nodeGraphFromPods, rbacSourceFromStores, serverAuthorizer, serverAuthorizerChain, type ObjectReader } from '../authz/from-stores.js';
import type { AdmissionPort, SubresourceAction, VirtualResource } from '../handlers/ports.js';
import type { ApiServerConfig } from '../options/table.js';
import { cachedReader } from '../registry/cached-reader.js';
import { requireStore, type Registry } from '../registry/index.js';
import { setRequester } from '../registry/resources/certificatesigningrequests.js';
import { REVIEW_RESOURCES, reviewAccess, reviewerFromAuthenticator, reviewerFromServiceAccounts, reviewToken, type AccessReviewKind, type ReviewObject } from '../registry/resources/reviews.js';
import { createTokenRequest, type TokenRequestDeps } from '../registry/resources/tokenrequest.js';
import type { GenericStore } from '../registry/store.js';
import { RBAC_GROUP } from '../authz/rbac-rules.js';
import type { ApiObject } from '../registry/types.js';
import { lookupFromStores, ServiceAccountTokenAuthenticator } from '../serviceaccount/authenticator.js';
import { loadServiceAccountKeys } from '../serviceaccount/keys.js';
import type { Authorizer, UserInfo } from '../types.js';

/** The issuer when --service-account-issuer is not given (kube-apiserver's usual one, renamed). */
export const DEFAULT_ISSUER = 'https://platform.default.svc.cluster.local';

export interface AuthParts {
  authorizers: readonly Authorizer[];
  tokenAuthenticators: readonly TokenAuthenticator[];
  /** Action subresources by `<resource>.<group>`. */
  actions: Readonly<Record<string, Readonly<Record<string, SubresourceAction>>>>;
  virtual: readonly VirtualResource[];
  admission: AdmissionPort;
  /** Makes the default service account of a namespace (new namespaces and the system ones at start). */
  namespaceDefaults(namespace: string): Promise<void>;
  /** The chain as one authorizer (what SubjectAccessReview and the CSR approver ask). */
  authorizer: Authorizer;
}

const NODE_PREFIX = 'system:node:';
const NODE_LEASE_NAMESPACE = 'platform-node-lease';

/** NodeRestriction for leases: a node writes only the lease named after itself in platform-node-lease. */
function checkNodeLease(user: UserInfo, namespace: string, obj: ApiObject): void {
  if (!user.name.startsWith(NODE_PREFIX) || !user.groups.includes('system:nodes') || namespace !== NODE_LEASE_NAMESPACE) return;
  const node = user.name.slice(NODE_PREFIX.length);
  const name = obj.metadata.name ?? '';
  if (name !== node) throw apiErrors.forbidden({ group: 'coordination.platform.io', resource: 'leases' }, name, `can only access node lease with the same name as the requesting node`);
}


/** `statics`: the front's static tokens (--token-auth-file, the admin token), asked by TokenReview as by requests. */
export async function assembleAuth(registry: Registry, config: ApiServerConfig, statics: TokenAuthenticator): Promise<AuthParts> {
  const core = (resource: string): GenericStore => requireStore(registry, { group: '', resource });
  const reader = (s: GenericStore): ObjectReader => s as unknown as ObjectReader;
  const graph = nodeGraphFromPods(reader(core('pods')));
  // RBAC is read from the stores' watch-fed caches on every request (as upstream's RBAC authorizer
  // reads its informers): a create or update through this server is seen by its next request; a
  // delete, or a write through another server, once its watch event arrived (cached-reader.ts).
  const rbacReader = (resource: string): ObjectReader => cachedReader(requireStore(registry, { group: RBAC_GROUP, resource })) as unknown as ObjectReader;
  const rbac = rbacSourceFromStores({
    roles: rbacReader('roles'),
    clusterRoles: rbacReader('clusterroles'),
    roleBindings: rbacReader('rolebindings'),
    clusterRoleBindings: rbacReader('clusterrolebindings'),
  });
  const authorizers = serverAuthorizerChain({ graph, rbac });
  const authorizer = serverAuthorizer({ graph, rbac });

  const keys = await loadServiceAccountKeys({
    ...(config.serviceAccountSigningKeyFile === '' ? {} : { signingKeyFile: config.serviceAccountSigningKeyFile }),
    keyFiles: config.serviceAccountKeyFiles,
  });
  const issuers = config.serviceAccountIssuer.length > 0 ? config.serviceAccountIssuer : [DEFAULT_ISSUER];
  const apiAudiences = config.apiAudiences.length > 0 ? config.apiAudiences : [issuers[0]!];
  const clock = { now: Date.now };
  const getter = (s: GenericStore) => ({ get: (ns: string, name: string) => s.get(ns, name) });
  const saAuth = new ServiceAccountTokenAuthenticator({ keys: keys.verifying, issuers, audiences: apiAudiences, clock }, lookupFromStores({ serviceaccounts: getter(core('serviceaccounts')), pods: getter(core('pods')), secrets: getter(core('secrets')) }));

  const tokenDeps: TokenRequestDeps = {
    async get(resource, namespace, name) {
      try {
        return await core(resource).get(namespace, name);
      } catch (e) {
        if (e instanceof ApiError && e.reason === 'NotFound') return undefined;
        throw e;
      }
    },
    signer: keys.signing,
    settings: { issuer: issuers[0]!, apiAudiences, maxExpirationSeconds: Math.floor(config.serviceAccountMaxTokenExpiration / 1000), extendExpiration: true },
    clock,
  };
  const tokenAction: SubresourceAction = {
    bodyKind: { group: 'authentication.platform.io', version: 'v1', kind: 'TokenRequest' },
    async create(namespace, name, body, opts) {
      const out = await createTokenRequest(tokenDeps, { namespace, name }, body, opts.signal);
      return { status: 201, object: out.object };
    },
  };

  // TokenReview asks the front's token authenticators in the front's order (static tokens, then
  // service-account JWTs). As for requests, an authenticated user is also in system:authenticated.
  const reviewers = [
    reviewerFromAuthenticator({ authenticate: async (token, signal) => {
      const user = await statics.authenticate(token, signal);
      return user === undefined ? undefined : withAuthenticatedGroup(user);
    } }, apiAudiences),
    reviewerFromServiceAccounts({
      review: async (token, signal, audiences) => {
        const v = await saAuth.review(token, signal, audiences);
        return 'user' in v ? { ...v, user: withAuthenticatedGroup(v.user) } : v;
      },
    }),
  ];
  const virtual: VirtualResource[] = REVIEW_RESOURCES.map((info) => ({
    info,
    async create(namespace, body, opts) {
      const result =
        info.resource === 'tokenreviews'
          ? await reviewToken(body as ReviewObject, reviewers, apiAudiences, opts.signal)
          : await reviewAccess(info.kind as AccessReviewKind, body as ReviewObject, { authorizer, requester: opts.user, namespace });
      if (result instanceof ApiError) throw result;
      return { status: 201, object: result as ApiObject };
    },
  }));

  const saAdmission = new ServiceAccountAdmission(accountGetterFromStore(core('serviceaccounts') as never));
  const admission: AdmissionPort = {
    async admit(info, obj, old, opts) {
      if (info.group === '' && (info.resource === 'pods' || info.resource === 'nodes') && old === undefined && opts.subresource === '') {
        const refused = admitNodeCreate(opts.user, info.resource, obj as never);
        if (refused !== undefined) throw refused;
        if (info.resource === 'pods') {
          const why = await saAdmission.admitCreate(obj as never, opts.namespace, opts.signal);
          if (why !== undefined) throw why;
        }
      }
      if (info.group === 'coordination.platform.io' && info.resource === 'leases') checkNodeLease(opts.user, opts.namespace, obj);
      if (info.group === 'certificates.platform.io' && info.resource === 'clustertrustbundles') {
        const refused = await admitClusterTrustBundle(authorizer, opts.user, obj as never, old as never);
        if (refused !== undefined) throw refused;
      }
      if (info.group === 'certificates.platform.io' && info.resource === 'certificatesigningrequests' && old === undefined) setRequester(obj, opts.user);
    },
    async created(info, obj) {
      if (info.group === '' && info.resource === 'namespaces') await namespaceDefaults(obj.metadata.name ?? '');
    },
  };
  async function namespaceDefaults(namespace: string): Promise<void> {
    if (namespace === '') return;
    try {
      await core('serviceaccounts').create(namespace, defaultServiceAccount(namespace) as unknown as ApiObject);
    } catch (e) {
      if (!(e instanceof ApiError && e.reason === 'AlreadyExists')) throw e;
    }
  }
  return {
    authorizers,
    tokenAuthenticators: [saAuth as unknown as TokenAuthenticator],
    actions: { 'serviceaccounts.': { token: tokenAction } },
    virtual,
    admission,
    namespaceDefaults,
    authorizer,
  };
}

