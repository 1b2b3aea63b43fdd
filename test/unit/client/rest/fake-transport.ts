// A scripted Transport for the rest layer's unit tests: records every request
// and answers each with what the test's handler returns (a response, a
// stream's chunks, or an error to reject with). No sockets, no timers.
import type { ApiCodec, ApiObject } from '../../../../src/api/codec/index.js';
import { ApiError } from '../../../../src/api/errors.js';
import { MEDIA_JSON, MEDIA_PROTOBUF } from '../../../../src/api/media.js';
import { ApiStatusError } from '../../../../src/client/errors.js';
import type { ClientLog, Transport, TransportRequest, TransportResponse, TransportStream } from '../../../../src/client/types.js';

export type Answer = TransportResponse | { stream: Buffer[]; contentType: string; closed?: () => void } | Error;

export interface FakeTransport extends Transport {
  readonly requests: TransportRequest[];
  readonly streamsClosed: number;
}

export function fakeTransport(answer: (req: TransportRequest, n: number) => Answer): FakeTransport {
  const requests: TransportRequest[] = [];
  let streamsClosed = 0;
  const next = (req: TransportRequest): Answer => {
    requests.push(req);
    return answer(req, requests.length - 1);
  };
  return {
    requests,
    get streamsClosed() {
      return streamsClosed;
    },
    async request(req) {
      const a = next(req);
      if (a instanceof Error) throw a;
      if ('stream' in a) throw new Error('fake: a stream answer to a request');
      return a;
    },
    async stream(req) {
      const a = next(req);
      if (a instanceof Error) throw a;
      if (!('stream' in a)) throw new Error('fake: a response answer to a stream');
      let closed = false;
      const chunks = a.stream;
      async function* body(): AsyncGenerator<Buffer> {
        for (const c of chunks) {
          if (closed) return;
          yield c;
        }
      }
      return {
        status: 200,
        headers: { 'content-type': a.contentType },
        body: body(),
        close() {
          if (!closed) streamsClosed++;
          closed = true;
          a.closed?.();
        },
      } satisfies TransportStream;
    },
    async close() {},
  };
}

export const json = (obj: unknown, status = 200): TransportResponse => ({ status, headers: { 'content-type': MEDIA_JSON }, body: Buffer.from(JSON.stringify(obj)) });
export const proto = (codec: ApiCodec, obj: ApiObject, status = 200): TransportResponse => ({ status, headers: { 'content-type': MEDIA_PROTOBUF }, body: codec.encode(obj) });

/** What the Transport rejects with for a non-2xx answer. */
export const statusError = (req: TransportRequest, err: ApiError): ApiStatusError => new ApiStatusError({ method: req.method, path: req.path }, err.status(), undefined);

export interface MemoryLog extends ClientLog {
  readonly lines: Array<{ level: string; msg: string; fields: Record<string, unknown> | undefined }>;
}

export function memoryLog(): MemoryLog {
  const lines: MemoryLog['lines'] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push({ level, msg, fields });
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

export const pod = (name: string, extra: Record<string, unknown> = {}): ApiObject => ({
  kind: 'Pod',
  apiVersion: 'v1',
  metadata: { name, namespace: 'ns1', resourceVersion: '5', uid: `uid-${name}` },
  spec: { containers: [{ name: 'c', image: 'busybox' }] },
  ...extra,
});
