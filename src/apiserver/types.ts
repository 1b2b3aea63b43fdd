// The seams inside platform-apiserver: what the HTTP front (http/) hands the
// verb handlers (registry/), and what authentication and authorization
// produce. Kept in one small file so the front and the handlers can be built
// and tested apart.
import type { IncomingHttpHeaders } from 'node:http';

/** Who made a request (authentication's answer). */
export interface UserInfo {
  name: string;
  uid: string;
  groups: readonly string[];
  extra: Readonly<Record<string, readonly string[]>>;
}

/**
 * What a request is about, parsed from its method, path and query as
 * kube-apiserver's RequestInfoFactory does: the verb (get, list, watch,
 * create, update, patch, delete, deletecollection), the API group and
 * version, namespace, resource, subresource and name. For a path that is
 * not a resource path (`/healthz`, `/version`, `/api`, discovery)
 * `isResourceRequest` is false and `verb` is the lower-cased HTTP method.
 */
export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  verb: string;
  /** `api` for the core group, `apis` for named groups, '' otherwise. */
  apiPrefix: '' | 'api' | 'apis';
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** The path's segments after the prefix, group and version. */
  parts: readonly string[];
}

/** What authorization decides on (upstream's authorizer.Attributes). */
export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

export type Decision = { allowed: true; reason: string } | { allowed: false; reason: string; /** no opinion: the next authorizer decides */ noOpinion: boolean };

/** One authorizer of the chain (system:masters, node, RBAC). Never throws for "deny". */
export interface Authorizer {
  authorize(attrs: AuthorizationAttributes): Promise<Decision>;
}

/**
 * One authenticated, authorized API request as the front hands it to the verb
 * handlers. `body()` reads the request body once, bounded by the server's
 * limit (413 beyond it). `signal` aborts when the client goes away or the
 * server stops: a watch ends on it.
 */
export interface ApiRequest {
  info: RequestInfo;
  user: UserInfo;
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body(): Promise<Buffer>;
  signal: AbortSignal;
}
