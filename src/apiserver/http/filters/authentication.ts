// 401 for a request nobody recognises (spec §5.1: there is no anonymous
// access); otherwise `ctx.user` is set for authorization and the handler.
// The health paths are served without credentials, for load balancers and
// process supervisors.
import type { TLSSocket } from 'node:tls';
import type { IncomingMessage } from 'node:http';
import { apiErrors } from '../../../api/errors.js';
import { authenticate } from '../../authn/authenticate.js';
import type { Credentials, TokenAuthenticator } from '../../authn/types.js';
import type { Filter } from '../context.js';

export const PUBLIC_PATHS: ReadonlySet<string> = new Set(['/healthz', '/livez', '/readyz']);

const firstOf = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/**
 * The Authorization header and the client certificate's subject, if it
 * verified against the client CA and is valid now. The handshake checked the
 * dates once; a keep-alive connection outlives them, and upstream checks each
 * request (a rotated-away certificate that expired is no identity).
 */
export function credentialsOf(req: IncomingMessage, now: number = Date.now()): Credentials {
  const socket = req.socket as Partial<TLSSocket>;
  let clientCertificate: Credentials['clientCertificate'];
  if (socket.authorized === true && typeof socket.getPeerCertificate === 'function') {
    const cert = socket.getPeerCertificate();
    if (!validAt(cert, now)) return { authorization: req.headers.authorization, clientCertificate: undefined };
    const subject = (cert?.subject ?? {}) as unknown as Record<string, string | string[] | undefined>;
    const cn = firstOf(subject['CN'])[0];
    if (cn !== undefined) clientCertificate = { commonName: cn, organizations: firstOf(subject['O']) };
  }
  return { authorization: req.headers.authorization, clientCertificate };
}

function validAt(cert: { valid_from?: string; valid_to?: string } | undefined, now: number): boolean {
  const from = Date.parse(cert?.valid_from ?? '');
  const to = Date.parse(cert?.valid_to ?? '');
  return Number.isFinite(from) && Number.isFinite(to) && from <= now && now <= to;
}

export function withAuthentication(tokenAuthenticators: readonly TokenAuthenticator[]): Filter {
  return async (ctx, next) => {
    if (PUBLIC_PATHS.has(ctx.url.pathname)) return next();
    const user = await authenticate(credentialsOf(ctx.req), tokenAuthenticators, ctx.abort.signal).catch((err: unknown) => {
      ctx.log.error('token authentication failed', { err, 'audit-ID': ctx.id });
      return undefined;
    });
    if (user === undefined) throw apiErrors.unauthorized();
    ctx.user = user;
    return next();
  };
}
