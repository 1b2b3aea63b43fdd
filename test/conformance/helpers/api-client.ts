// A deliberately plain HTTP client for the conformance suite: it sends exactly
// the bytes and headers a test names and hands back status, headers and the
// raw body, so each test states the wire behaviour of the spec it checks
// (nothing here knows the server's internals or the project's own client).
import { Agent, request, type Dispatcher } from 'undici';
import { gunzipSync } from 'node:zlib';

export interface Resp {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as received (still gzip-compressed when the server compressed it). */
  raw: Buffer;
  text(): string;
  /** The body parsed as JSON (gunzipped first when content-encoding is gzip). */
  json(): Json;
  header(name: string): string | undefined;
  /** Every value of a repeated header (Warning). */
  headerValues(name: string): string[];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests poke at arbitrary JSON shapes
export type Json = any;

export interface RequestOptions {
  body?: unknown;
  contentType?: string;
  accept?: string;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
  /** Omit the Authorization header (the client's token) entirely. */
  anonymous?: boolean;
  signal?: AbortSignal;
}

export interface WatchEvent {
  type: string;
  object: Json;
}

export interface WatchStream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The next event, or undefined when the stream ended or `timeoutMs` passed. */
  next(timeoutMs?: number): Promise<WatchEvent | undefined>;
  /** Events until `pred` holds for one (returned last) — bounded by `timeoutMs` overall. */
  until(pred: (e: WatchEvent) => boolean, timeoutMs?: number): Promise<WatchEvent[]>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export function queryString(q: RequestOptions['query']): string {
  if (q === undefined) return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined) continue;
    parts.push(v === '' ? encodeURIComponent(k) : `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  }
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

function toResp(status: number, headers: Resp['headers'], raw: Buffer): Resp {
  const header = (name: string): string | undefined => {
    const v = headers[name.toLowerCase()];
    return Array.isArray(v) ? v.join(', ') : v;
  };
  return {
    status,
    headers,
    raw,
    header,
    headerValues: (name) => {
      const v = headers[name.toLowerCase()];
      return v === undefined ? [] : Array.isArray(v) ? v : [v];
    },
    text: () => raw.toString('utf8'),
    json: () => JSON.parse((header('content-encoding') === 'gzip' ? gunzipSync(raw) : raw).toString('utf8')),
  };
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly dispatcher: Dispatcher,
    readonly token: string | undefined,
  ) {}

  /** Same server, another bearer token (undefined: no credentials). */
  as(token: string | undefined): ApiClient {
    return new ApiClient(this.baseUrl, this.dispatcher, token);
  }

  async request(method: string, path: string, opts: RequestOptions = {}): Promise<Resp> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.accept !== undefined) headers.accept = opts.accept;
    if (this.token !== undefined && opts.anonymous !== true) headers.authorization = `Bearer ${this.token}`;
    let body: Buffer | string | undefined;
    if (opts.body !== undefined) {
      body = Buffer.isBuffer(opts.body) || typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] = opts.contentType ?? 'application/json';
    }
    const res = await request(`${this.baseUrl}${path}${queryString(opts.query)}`, {
      method: method as Dispatcher.HttpMethod,
      headers,
      ...(body === undefined ? {} : { body }),
      dispatcher: this.dispatcher,
      ...(opts.signal === undefined ? {} : { signal: opts.signal }),
    });
    const raw = Buffer.from(await res.body.arrayBuffer());
    return toResp(res.statusCode, res.headers as Resp['headers'], raw);
  }

  get(path: string, opts?: RequestOptions): Promise<Resp> {
    return this.request('GET', path, opts);
  }
  post(path: string, body: unknown, opts: RequestOptions = {}): Promise<Resp> {
    return this.request('POST', path, { ...opts, body });
  }
  put(path: string, body: unknown, opts: RequestOptions = {}): Promise<Resp> {
    return this.request('PUT', path, { ...opts, body });
  }
  patch(path: string, body: unknown, contentType: string, opts: RequestOptions = {}): Promise<Resp> {
    return this.request('PATCH', path, { ...opts, body, contentType });
  }
  delete(path: string, opts: RequestOptions = {}): Promise<Resp> {
    return this.request('DELETE', path, opts);
  }

  /** A JSON watch: GET with `watch=1` and the given query; events split on the newline after each document. */
  async watch(path: string, query: RequestOptions['query'] = {}, opts: RequestOptions = {}): Promise<WatchStream> {
    const ac = new AbortController();
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.accept !== undefined) headers.accept = opts.accept;
    if (this.token !== undefined && opts.anonymous !== true) headers.authorization = `Bearer ${this.token}`;
    const res = await request(`${this.baseUrl}${path}${queryString({ watch: 1, ...query })}`, { method: 'GET', headers, dispatcher: this.dispatcher, signal: ac.signal });
    const queue: WatchEvent[] = [];
    const waiting: Array<() => void> = [];
    let done = false;
    let buf = '';
    const wake = (): void => {
      for (const w of waiting.splice(0)) w();
    };
    res.body.setEncoding('utf8');
    const ended = new Promise<void>((resolve) => {
      res.body.on('data', (chunk: string) => {
        buf += chunk;
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (line !== '') queue.push(JSON.parse(line) as WatchEvent);
        }
        wake();
      });
      const finish = (): void => {
        done = true;
        wake();
        resolve();
      };
      res.body.on('end', finish);
      res.body.on('error', finish);
      res.body.on('close', finish);
    });
    const next = async (timeoutMs = 10_000): Promise<WatchEvent | undefined> => {
      const deadline = Date.now() + timeoutMs;
      while (queue.length === 0 && !done) {
        const left = deadline - Date.now();
        if (left <= 0) return undefined;
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, left);
          waiting.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
      return queue.shift();
    };
    return {
      status: res.statusCode,
      headers: res.headers as Resp['headers'],
      next,
      async until(pred, timeoutMs = 10_000) {
        const deadline = Date.now() + timeoutMs;
        const seen: WatchEvent[] = [];
        for (;;) {
          const e = await next(Math.max(0, deadline - Date.now()));
          if (e === undefined) throw new Error(`watch ${path}: no matching event within ${timeoutMs} ms; saw ${JSON.stringify(seen.map((s) => [s.type, s.object?.metadata?.name]))}`);
          seen.push(e);
          if (pred(e)) return seen;
        }
      },
      ended,
      close: () => {
        ac.abort();
        res.body.destroy();
      },
    };
  }
}

export function tlsDispatcher(caPem: string): Agent {
  return new Agent({ connect: { ca: caPem }, pipelining: 0 });
}
