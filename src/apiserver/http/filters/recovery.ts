// Anything a later filter or the handler throws becomes a Status: an ApiError
// as it is, anything else as 500 InternalError (and an error log line: it is
// a bug). The server keeps serving.
import { isApiError } from '../../../api/errors.js';
import type { Filter } from '../context.js';
import { toApiError, writeStatus } from '../status.js';

export const withRecovery: Filter = async (ctx, next) => {
  try {
    await next();
  } catch (err) {
    if (!isApiError(err)) ctx.log.error('request failed with an unexpected error', { err, method: ctx.req.method, URI: ctx.req.url, 'audit-ID': ctx.id });
    writeStatus(ctx.res, toApiError(err));
  }
};
