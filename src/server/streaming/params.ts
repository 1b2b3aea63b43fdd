// The kubelet's streaming request parameters, read from a URL: which pod and
// container (path segments), which streams (query), which ports. Pure: each
// parser returns the value or the HTTP answer the request gets instead.

/** An HTTP answer given before any stream starts. */
export interface Refusal {
  readonly status: number;
  readonly message: string;
}

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly refusal: Refusal };

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
export const refuse = (status: number, message: string): { ok: false; refusal: Refusal } => ({ ok: false, refusal: { status, message } });

export interface PodTarget {
  readonly namespace: string;
  readonly pod: string;
  /** From the 4-segment form; '' when the request did not name one. */
  readonly uid: string;
  /** '' for portForward. */
  readonly container: string;
}

/**
 * Reads `{namespace}/{pod}/{container}` or `{namespace}/{pod}/{uid}/{container}`
 * (withContainer), or `{namespace}/{pod}` or `{namespace}/{pod}/{uid}` (portForward),
 * from the path under `prefix` (`/exec/`). Segments are percent-decoded.
 */
export function parsePodPath(pathname: string, prefix: string, withContainer: boolean): Parsed<PodTarget> {
  const rest = pathname.startsWith(prefix) ? pathname.slice(prefix.length) : '';
  const raw = rest.replace(/\/+$/, '').split('/');
  let segs: string[];
  try {
    segs = raw.map((s) => decodeURIComponent(s));
  } catch {
    return refuse(400, `malformed path ${pathname}: bad percent-encoding`);
  }
  const forms = withContainer ? '{namespace}/{pod}/{container} or {namespace}/{pod}/{uid}/{container}' : '{namespace}/{pod} or {namespace}/{pod}/{uid}';
  const [a, b, c, d] = segs;
  const min = withContainer ? 3 : 2;
  if (segs.length < min || segs.length > min + 1 || segs.some((s) => s === '') || a === undefined || b === undefined) {
    return refuse(404, `no such path ${pathname}: expected ${prefix}${forms}`);
  }
  if (!withContainer) return ok({ namespace: a, pod: b, uid: c ?? '', container: '' });
  if (segs.length === 4) return ok({ namespace: a, pod: b, uid: c ?? '', container: d ?? '' });
  return ok({ namespace: a, pod: b, uid: '', container: c ?? '' });
}

export interface StreamOptions {
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
  readonly tty: boolean;
}

/**
 * The kubelet's remotecommand options: `input`, `output`, `error`, `tty`,
 * each on only when "1" (what the API server sends). stderr is dropped under
 * a tty, as upstream does; no stream at all is a 400.
 */
export function parseStreamOptions(q: URLSearchParams): Parsed<StreamOptions> {
  const on = (k: string): boolean => q.get(k) === '1';
  const tty = on('tty');
  const stdin = on('input');
  const stdout = on('output');
  const stderr = on('error') && !tty;
  if (!stdin && !stdout && !stderr) return refuse(400, 'you must specify at least 1 of stdin, stdout, stderr (query parameters input=1, output=1, error=1)');
  return ok({ stdin, stdout, stderr, tty });
}

/** The exec command: every `command` query value, in order; at least one. */
export function parseExecCommand(q: URLSearchParams): Parsed<string[]> {
  const cmd = q.getAll('command');
  if (cmd.length === 0 || cmd[0] === '') return refuse(400, 'query parameter "command" is required (one value per argument)');
  return ok(cmd);
}

/** /run's `cmd`: one string split on single spaces, as the kubelet does. */
export function parseRunCommand(q: URLSearchParams): Parsed<string[]> {
  const cmd = q.get('cmd');
  if (cmd === null || cmd.trim() === '') return refuse(400, 'query parameter "cmd" is required');
  return ok(cmd.split(' '));
}

/**
 * Port-forward ports. A WebSocket client names them in `port` (repeatable,
 * comma-separated values) and must name one; an SPDY client names each in
 * its stream headers, so the query is not read for it (upstream's rule).
 */
export function parsePorts(q: URLSearchParams, websocket: boolean): Parsed<number[]> {
  if (!websocket) return ok([]);
  const values = q.getAll('port');
  if (values.length === 0) return refuse(400, 'query parameter "port" is required');
  const ports: number[] = [];
  for (const v of values.flatMap((s) => s.split(','))) {
    const t = v.trim();
    if (!/^\d{1,5}$/.test(t) || Number(t) > 65535) return refuse(400, `unable to parse "${v}" as a port: query parameter "port" takes integers 1-65535`);
    if (Number(t) === 0) return refuse(400, `port "${v}" must be > 0`);
    ports.push(Number(t));
  }
  return ok(ports);
}

/** The kubelet's test of a WebSocket request: `Connection: upgrade` and `Upgrade: websocket`. */
export function isWebSocketRequest(headers: { readonly connection?: string | undefined; readonly upgrade?: string | undefined }): boolean {
  const conn = (headers.connection ?? '').toLowerCase().split(',').map((s) => s.trim());
  return conn.includes('upgrade') && (headers.upgrade ?? '').toLowerCase() === 'websocket';
}

/** What an HTTP status the runtime's failure becomes (upstream's streaming.WriteError mapping). */
export function statusForGrpc(status: string): number {
  switch (status) {
    case 'NOT_FOUND':
      return 404;
    case 'RESOURCE_EXHAUSTED':
      return 429;
    case 'OUT_OF_RANGE':
      return 416;
    default:
      return 500;
  }
}
