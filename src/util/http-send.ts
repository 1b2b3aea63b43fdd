// One exchange through Node's own HTTP client, for the callers that read the
// answer themselves (the API client's pools, the URL source's poll): http or
// https by the URL, resolving at the response head.
import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';

/**
 * Sends `options` to `url` (the options' path, agent and headers win) with
 * `body`, if any. `onRequest` sees the request before it goes (a connect
 * timeout). Rejects on a failure before the head; later ones reach whoever
 * reads the body (its iteration throws), and none is left uncaught.
 */
export function sendHttp(url: URL, options: RequestOptions, body?: Uint8Array | string, onRequest?: (req: ClientRequest) => void): Promise<IncomingMessage> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, options, (res) => {
      res.on('error', () => {});
      resolve(res);
    });
    req.on('error', reject);
    onRequest?.(req);
    req.end(body);
  });
}
