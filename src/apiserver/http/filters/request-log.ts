// The request log line (upstream's httplog): verb, URI, latency, user agent,
// audit id, source and status, at -v=3, when the response is done (a watch
// logs when it ends). Also sends the request id back as `Audit-Id`.
import type { Filter } from '../context.js';

export const REQUEST_LOG_LEVEL = 3;

export const withRequestLog: Filter = async (ctx, next) => {
  ctx.res.setHeader('Audit-Id', ctx.id);
  try {
    await next();
  } finally {
    const latencyMs = Number(process.hrtime.bigint() - ctx.startedNs) / 1e6;
    ctx.log.v(REQUEST_LOG_LEVEL)?.info('HTTP', {
      verb: ctx.req.method,
      URI: ctx.req.url,
      latency: `${latencyMs.toFixed(3)}ms`,
      userAgent: ctx.req.headers['user-agent'] ?? '',
      'audit-ID': ctx.id,
      srcIP: `${ctx.req.socket.remoteAddress ?? ''}:${ctx.req.socket.remotePort ?? ''}`,
      user: ctx.user?.name ?? '',
      resp: ctx.res.statusCode,
    });
  }
};
