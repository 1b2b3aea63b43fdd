// Authentication and authorization of the main port (10250). The composition
// root builds one Authenticator and one Authorizer from the options
// (apiReviewers when the webhooks are on) and hands them to the HTTP core,
// which calls authenticate, then authorizeRequest, once per request.
export { createAuthenticator, bearerToken, certificateUser, withAuthenticatedGroup, SYSTEM_AUTHENTICATED } from './authenticator.js';
export type { TokenReviewer, AuthenticatorOptions } from './authenticator.js';
export { createAuthorizer, authorizeRequest, attributesKey } from './authorizer.js';
export type { AccessReviewer, AuthorizerOptions } from './authorizer.js';
export { requestAttributes, subresourcesOf, verbOf, forbiddenMessage } from './attributes.js';
export { apiReviewers } from './api-reviewers.js';
export { authnRequestOf } from './tls-request.js';
export type { AuthLog } from './log.js';
