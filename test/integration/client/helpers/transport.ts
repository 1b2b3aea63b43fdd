// The Transport the client's integration tests use until src/client/transport
// lands: the smallest undici implementation of the contract in
// src/client/types.ts (bearer token and CA of the server's admin
// platformconfig; 2xx resolve; a Status body, JSON or protobuf, becomes
// ApiStatusError; no rate limits, no retries). Every integration test gets
// its Transport from testTransport(), so swapping this body for
// createTransport(loadPlatformConfig(...)) is the whole migration.
import { gunzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { loadApiCodec } from '../../../../src/api/codec/index.js';
import type { Status } from '../../../../src/api/errors.js';
import { MEDIA_PROTOBUF, mediaTypeOf } from '../../../../src/api/media.js';
import { ApiStatusError, ClientConnectionError, type RequestRef } from '../../../../src/client/errors.js';
import type { Transport, TransportRequest, TransportResponse, TransportStream } from '../../../../src/client/types.js';
import type { ServerHandle } from '../../../conformance/helpers/server.js';

type Headers = Record<string, string | string[] | undefined>;

const first = (v: string | string[] | undefined): string => (Array.isArray(v) ? (v[0] ?? '') : (v ?? ''));

async function statusError(ref: RequestRef, code: number, headers: Headers, body: Buffer): Promise<ApiStatusError> {
  let status: Status | undefined;
  try {
    status = mediaTypeOf(first(headers['content-type'])) === MEDIA_PROTOBUF ? ((await loadApiCodec()).decode(body).object as unknown as Status) : (JSON.parse(body.toString('utf8')) as Status);
  } catch {
    status = undefined;
  }
  if (status?.kind !== 'Status') status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code, reason: 'Unknown', message: body.toString('utf8').slice(0, 200) };
  const ra = Number(first(headers['retry-after']));
  return new ApiStatusError(ref, status, Number.isFinite(ra) && first(headers['retry-after']) !== '' ? ra : status.details?.retryAfterSeconds);
}

export function testTransport(srv: ServerHandle): Transport {
  // The admin's token and the CA are what startServer read from the admin platformconfig.
  const token = srv.admin.token ?? '';
  const agent = new Agent({ connect: { ca: srv.ca }, pipelining: 0 });
  const send = async (req: TransportRequest, stream: boolean, signal: AbortSignal | undefined) => {
    const ref = { method: req.method, path: req.path };
    const q = req.query === undefined || req.query.size === 0 ? '' : `?${req.query.toString()}`;
    try {
      const res = await request(`${srv.url}${req.path}${q}`, {
        method: req.method,
        dispatcher: agent,
        headers: { ...req.headers, authorization: `Bearer ${token}`, 'accept-encoding': stream ? 'identity' : 'gzip' },
        ...(req.body === undefined ? {} : { body: req.body }),
        ...(signal === undefined ? {} : { signal }),
      });
      return { ref, res };
    } catch (err) {
      if (signal?.aborted === true) throw signal.reason;
      throw new ClientConnectionError(ref, (err as Error).message, err);
    }
  };
  return {
    async request(req) {
      const { ref, res } = await send(req, false, req.signal);
      let body = Buffer.from(await res.body.arrayBuffer());
      if (first(res.headers['content-encoding']) === 'gzip') body = gunzipSync(body);
      if (res.statusCode < 200 || res.statusCode > 299) throw await statusError(ref, res.statusCode, res.headers, body);
      return { status: res.statusCode, headers: res.headers, body } satisfies TransportResponse;
    },
    async stream(req) {
      const ac = new AbortController();
      const onAbort = (): void => ac.abort(req.signal?.reason);
      req.signal?.addEventListener('abort', onAbort, { once: true });
      const { ref, res } = await send(req, true, ac.signal).catch((err: unknown) => {
        req.signal?.removeEventListener('abort', onAbort);
        throw err;
      });
      const close = (): void => {
        req.signal?.removeEventListener('abort', onAbort);
        ac.abort();
        res.body.destroy();
      };
      if (res.statusCode < 200 || res.statusCode > 299) {
        const body = Buffer.from(await res.body.arrayBuffer());
        close();
        throw await statusError(ref, res.statusCode, res.headers, body);
      }
      async function* chunks(): AsyncGenerator<Buffer> {
        try {
          for await (const c of res.body) yield c as Buffer;
        } catch (err) {
          if (ac.signal.aborted) return;
          throw new ClientConnectionError(ref, (err as Error).message, err);
        } finally {
          close();
        }
      }
      return { status: res.statusCode, headers: res.headers, body: chunks(), close } satisfies TransportStream;
    },
    close: () => agent.close(),
  };
}

/** POST /debug/faults/<action> as the admin (servers started with `faults: true`). */
export async function fault(srv: ServerHandle, action: 'drop-watches' | 'compact' | 'reset' | 'fail' | 'delay', body: Record<string, unknown> = {}): Promise<void> {
  const res = await srv.admin.post(`/debug/faults/${action}`, { body });
  if (res.status !== 200) throw new Error(`fault ${action}: ${res.status} ${res.text()}`);
}
