// The order of the filters, in one place: log (outermost, sees the final
// status) → recovery (errors become Status) → authentication (401) →
// authorization (403) → timeout (504) → body limit (413) → routes.
import type { TokenAuthenticator } from '../authn/types.js';
import type { Authorizer } from '../types.js';
import { compose, type Endpoint } from './context.js';
import { withAuthentication } from './filters/authentication.js';
import { withAuthorization } from './filters/authorization.js';
import { withBodyLimit } from './filters/body-limit.js';
import { withRecovery } from './filters/recovery.js';
import { withRequestLog } from './filters/request-log.js';
import { withTimeout } from './filters/timeout.js';
import { routes, type ApiHandler } from './routes.js';
import type { ServerVersion } from './version.js';

export interface PipelineOptions {
  tokenAuthenticators: readonly TokenAuthenticator[];
  authorizers: readonly Authorizer[];
  handle: ApiHandler;
  requestTimeoutMs: number;
  /** 0: no limit. */
  maxBodyBytes: number;
  version?: ServerVersion;
}

export function buildPipeline(o: PipelineOptions): Endpoint {
  return compose(
    [withRequestLog, withRecovery, withAuthentication(o.tokenAuthenticators), withAuthorization(o.authorizers), withTimeout(o.requestTimeoutMs), withBodyLimit(o.maxBodyBytes)],
    routes(o.handle, o.version),
  );
}
