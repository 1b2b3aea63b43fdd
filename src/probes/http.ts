// The httpGet handler (the kubelet's pkg/probe/http): one GET without
// keep-alive or certificate verification, within the handler's budget,
// following redirects as the kubelet's probe client does: up to 10, to the
// same host only; a redirect elsewhere ends the chain and is a success with a
// warning. 2xx is a success, 3xx a warning, anything else a failure; a
// transport error (refused, reset, timed out) is a failure, not an error.
// Callers: the probe workers and the lifecycle hooks. Never throws except
// UnknownPortError (a port name the container does not declare).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { bounded, hostForUrl, resolvePort, type Action, type ActionResult, type ActionTarget } from './action.js';

/** The kubelet's maxRespBodyLength: a probe reads at most 10 KiB of the body. */
export const MAX_BODY_BYTES = 10 * 1024;
/** Go's http.Client default, kept by the kubelet's same-host redirect checker. */
export const MAX_REDIRECTS = 10;

export type HttpGetAction = NonNullable<Action['httpGet']>;

export interface HttpResult extends ActionResult {
  /** The last response's status code; undefined when no response came (a transport error). */
  readonly status?: number;
  /** A redirect to another host that was not followed (its Location). */
  readonly offHostRedirect?: string;
}

/** The probe's URL: scheme, host (the pod's IP by default), port (by number or name) and path with its query. */
export function httpGetUrl(action: HttpGetAction, target: Pick<ActionTarget, 'podIP' | 'ports'>): URL {
  const scheme = (action.scheme ?? 'HTTP').toLowerCase();
  const host = action.host !== undefined && action.host !== '' ? action.host : target.podIP;
  const port = resolvePort(action.port, target.ports);
  let path = action.path ?? '';
  if (!path.startsWith('/')) path = `/${path}`;
  return new URL(`${scheme}://${hostForUrl(host)}:${port}${path}`);
}

/** The request headers: the spec's, then User-Agent `<agent>/<major.minor>` and Accept `*\/*` unless the spec set them. */
export function httpGetHeaders(action: HttpGetAction, userAgent: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of action.httpHeaders ?? []) {
    const key = h.name.toLowerCase();
    // Repeated names are sent joined, as Go sends a multi-valued header.
    out[key] = out[key] === undefined ? h.value : `${out[key]}, ${h.value}`;
  }
  out['user-agent'] ??= userAgent;
  out['accept'] ??= '*/*';
  out['connection'] = 'close';
  return out;
}

/** Runs one httpGet; `userAgent` is `platform-probe/1.28` for probes, `platform-lifecycle/1.28` for hooks. */
export async function runHttpGet(action: HttpGetAction, target: ActionTarget, userAgent: string): Promise<HttpResult> {
  const first = httpGetUrl(action, target);
  const headers = httpGetHeaders(action, userAgent);
  // One deadline for the whole probe, redirects included (Go's Client.Timeout).
  const deadline = target.timeoutMs > 0 ? performance.now() + target.timeoutMs : Infinity;
  let url = first;
  try {
    for (let hops = 0; ; hops++) {
      const { status, location, body } = await getOnce(url, headers, target.signal, deadline);
      if (status >= 300 && status < 400 && location !== undefined) {
        const next = new URL(location, url);
        // Only the same host is followed (the kubelet's rule); elsewhere is a success with a warning.
        if (next.hostname !== first.hostname) return verdict(status, body, next.href);
        if (hops + 1 >= MAX_REDIRECTS) return { result: 'failure', output: `Get "${first.href}": stopped after ${MAX_REDIRECTS} redirects` };
        url = next;
        continue;
      }
      return verdict(status, body);
    }
  } catch (e) {
    const why = e instanceof ProbeTimeout ? `context deadline exceeded (Client.Timeout exceeded while awaiting headers)` : (e as Error).message;
    return { result: 'failure', output: `Get "${url.href}": ${why}` };
  }
}

class ProbeTimeout extends Error {
  override name = 'ProbeTimeout';
}

/**
 * One GET and its body (at most MAX_BODY_BYTES), ended by the deadline or the
 * signal. One timer and one abort listener per request, both removed when it
 * settles: a probe every period on every pod must not cost an AbortSignal.any
 * and a timeout signal each (measured by bench/probes.mjs).
 */
function getOnce(url: URL, headers: Record<string, string>, signal: AbortSignal, deadline: number): Promise<{ status: number; location: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const opts = { method: 'GET', headers, agent: false as const };
    const req = url.protocol === 'https:' ? httpsRequest(url, { ...opts, rejectUnauthorized: false }) : httpRequest(url, opts);
    let settled = false;
    const finish = (err: Error | undefined, value?: { status: number; location: string | undefined; body: string }): void => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (err) {
        req.destroy();
        reject(err);
      } else resolve(value!);
    };
    const onAbort = (): void => finish(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    const left = deadline - performance.now();
    const timer = Number.isFinite(left) ? setTimeout(() => finish(new ProbeTimeout()), Math.max(0, left)) : undefined;
    signal.addEventListener('abort', onAbort, { once: true });
    req.once('error', (e) => finish(e));
    req.once('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (): void => {
        res.removeAllListeners('data');
        finish(undefined, { status: res.statusCode ?? 0, location: res.headers.location, body: Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES).toString('utf8') });
        res.destroy();
      };
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        size += c.length;
        if (size >= MAX_BODY_BYTES) done();
      });
      res.once('end', done);
      res.once('error', (e) => (size >= MAX_BODY_BYTES ? done() : finish(e)));
    });
    req.end();
  });
}

function verdict(status: number, body: string, offHost?: string): HttpResult {
  const extra = offHost === undefined ? {} : { offHostRedirect: offHost };
  if (status >= 200 && status < 300) return { result: 'success', output: bounded(body), status };
  if (status >= 300 && status < 400) return { result: 'warning', output: bounded(`Probe terminated redirects, Response body: ${body}`), status, ...extra };
  return { result: 'failure', output: `HTTP probe failed with statuscode: ${status}`, status };
}
