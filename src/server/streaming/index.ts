// The kubelet's streaming endpoints on the main port (debugging handlers):
// /exec, /attach and /portForward ask the runtime for a stream (CRI Exec,
// Attach, PortForward) and proxy the client's upgrade to the URL it answers;
// /run runs a command to completion (CRI ExecSync) and answers its output;
// /cri/ proxies to the runtime's streaming server directly. Built once by the
// composition root; the HTTP core calls `handle` for plain requests and
// `upgrade` for Upgrade requests, after authentication and authorization.
import type { ServerResponse } from 'node:http';
import { isCriError } from '../../cri/errors.js';
import type { RuntimeService } from '../../cri/types.js';
import type { LifecycleLog } from '../../lifecycle/component.js';
import type { StatusStore } from '../../status/store.js';
import type { Route, RouteContext, UpgradeContext } from '../types.js';
import { findContainerId, findPod, findSandboxId } from './lookup.js';
import {
  isWebSocketRequest,
  parseExecCommand,
  parsePodPath,
  parsePorts,
  parseRunCommand,
  parseStreamOptions,
  refuse,
  statusForGrpc,
  type Parsed,
  type Refusal,
} from './params.js';
import { proxyUpgrade, writeRawResponse } from './proxy.js';

export interface StreamingDeps {
  status: Pick<StatusStore, 'all'>;
  runtime: RuntimeService;
  /** --streaming-connection-idle-timeout in ms; 0: streams never time out. */
  streamingIdleTimeoutMs: number;
  log: LifecycleLog;
}

type Kind = 'exec' | 'attach' | 'portForward';
const RPC: Readonly<Record<Kind, string>> = { exec: 'Exec', attach: 'Attach', portForward: 'PortForward' };

/** A request's stream, checked and located: calling `open` asks the runtime for its URL. */
interface Located {
  readonly what: string;
  open(signal: AbortSignal): Promise<string>;
}

export function streamingRoutes(d: StreamingDeps): Route[] {
  // The origin of the last streaming URL the runtime handed out: where /cri/ leads.
  let runtimeOrigin: string | undefined;

  const locate = async (kind: Kind, url: URL, websocket: boolean, signal: AbortSignal): Promise<Parsed<Located>> => {
    const prefix = `/${kind}/`;
    const path = parsePodPath(url.pathname, prefix, kind !== 'portForward');
    if (!path.ok) return path;
    const q = url.searchParams;
    if (kind === 'portForward') {
      const ports = parsePorts(q, websocket);
      if (!ports.ok) return ports;
      const pod = findPod(d.status, path.value);
      if (!pod.ok) return pod;
      const sandbox = await findSandboxId(d.runtime, pod.value, signal);
      if (!sandbox.ok) return sandbox;
      const what = `pod ${pod.value.ref}`;
      return { ok: true, value: { what, open: (s) => d.runtime.portForward({ podSandboxId: sandbox.value, port: ports.value }, s) } };
    }
    const opts = parseStreamOptions(q);
    if (!opts.ok) return opts;
    const cmd = kind === 'exec' ? parseExecCommand(q) : ({ ok: true, value: [] as string[] } as const);
    if (!cmd.ok) return cmd;
    const target = await containerOf(d, path.value, signal);
    if (!target.ok) return target;
    const { id, what } = target.value;
    const { stdin, stdout, stderr, tty } = opts.value;
    const open =
      kind === 'exec'
        ? (s: AbortSignal) => d.runtime.exec({ containerId: id, cmd: cmd.value, stdin, stdout, stderr, tty }, s)
        : (s: AbortSignal) => d.runtime.attach({ containerId: id, stdin, stdout, stderr, tty }, s);
    return { ok: true, value: { what, open } };
  };

  const streamRoute = (kind: Kind): Route => ({
    path: `/${kind}/`,
    readOnly: false,
    debugging: true,
    methods: ['GET', 'POST'],
    async handle(ctx: RouteContext): Promise<void> {
      // Checked as far as the runtime call, so a wrong pod or query gets its own answer; no stream is prepared for a request that cannot carry one.
      const r = await guard(() => locate(kind, ctx.url, false, ctx.signal), `${kind} lookup`);
      answer(ctx.res, r.ok ? { status: 400, message: 'Upgrade request required: use an SPDY/3.1 or WebSocket client' } : r.refusal);
    },
    async upgrade(ctx: UpgradeContext): Promise<void> {
      const websocket = isWebSocketRequest(ctx.req.headers);
      const found = await guard(() => locate(kind, ctx.url, websocket, ctx.signal), `${kind} lookup`);
      if (!found.ok) return writeRawResponse(ctx.socket, found.refusal.status, found.refusal.message);
      const target = await guard(() => streamUrl(found.value, kind, ctx.signal), `runtime ${RPC[kind]}`);
      if (!target.ok) return writeRawResponse(ctx.socket, target.refusal.status, target.refusal.message);
      runtimeOrigin = target.value.origin;
      await proxy(ctx, target.value, `${kind} ${found.value.what}`);
    },
  });

  const proxy = async (ctx: UpgradeContext, target: URL, what: string): Promise<void> => {
    const started = Date.now();
    const out = await proxyUpgrade({ req: ctx.req, socket: ctx.socket, head: ctx.head, target, idleTimeoutMs: d.streamingIdleTimeoutMs, signal: ctx.signal, log: d.log });
    d.log.info('Stream ended', { stream: what, user: ctx.user?.name, status: out.status, ended: out.ended, ms: Date.now() - started });
  };

  const streamUrl = async (l: Located, kind: Kind, signal: AbortSignal): Promise<Parsed<URL>> => {
    let raw: string;
    try {
      raw = await l.open(signal);
    } catch (err) {
      return refuse(isCriError(err) ? statusForGrpc(err.status) : 500, `runtime ${RPC[kind]} for ${l.what} failed: ${message(err)}`);
    }
    const u = URL.canParse(raw) ? new URL(raw) : undefined;
    if (u === undefined || (u.protocol !== 'http:' && u.protocol !== 'https:')) {
      return refuse(500, `runtime ${RPC[kind]} for ${l.what} answered an unusable streaming URL ${JSON.stringify(raw)}: want an absolute http(s) URL`);
    }
    return { ok: true, value: u };
  };

  const run: Route = {
    path: '/run/',
    readOnly: false,
    debugging: true,
    methods: ['POST'],
    async handle(ctx: RouteContext): Promise<void> {
      const r = await guard(() => runCommand(d, ctx.url, ctx.signal), 'run');
      if (!r.ok) return answer(ctx.res, r.refusal);
      ctx.res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': r.value.length });
      ctx.res.end(r.value);
    },
  };

  const cri: Route = {
    path: '/cri/',
    readOnly: false,
    debugging: true,
    methods: ['GET', 'POST'],
    async handle(ctx: RouteContext): Promise<void> {
      answer(ctx.res, { status: 400, message: 'Upgrade request required: /cri/ serves the runtime streaming URLs to SPDY/3.1 or WebSocket clients' });
    },
    async upgrade(ctx: UpgradeContext): Promise<void> {
      if (runtimeOrigin === undefined) return writeRawResponse(ctx.socket, 404, 'no runtime streaming server known yet: /cri/ leads to the server of the last exec, attach or portForward URL');
      const rest = ctx.url.pathname.slice('/cri'.length);
      await proxy(ctx, new URL(`${runtimeOrigin}${rest}${ctx.url.search}`), `cri ${rest}`);
    },
  };

  return [streamRoute('exec'), streamRoute('attach'), streamRoute('portForward'), run, cri];
}

/** The container a request names: its pod from the store, its id from the runtime. */
async function containerOf(d: StreamingDeps, t: Parameters<typeof findPod>[1], signal: AbortSignal): Promise<Parsed<{ id: string; what: string }>> {
  const pod = findPod(d.status, t);
  if (!pod.ok) return pod;
  const id = await findContainerId(d.runtime, pod.value, t.container, signal);
  if (!id.ok) return id;
  return { ok: true, value: { id: id.value, what: `container ${t.container} of pod ${pod.value.ref}` } };
}

/** /run: ExecSync without a time limit; stdout then stderr, as upstream (no interleaving). A non-zero exit is a 500 naming it. */
async function runCommand(d: StreamingDeps, url: URL, signal: AbortSignal): Promise<Parsed<Buffer>> {
  const path = parsePodPath(url.pathname, '/run/', true);
  if (!path.ok) return path;
  const cmd = parseRunCommand(url.searchParams);
  if (!cmd.ok) return cmd;
  const target = await containerOf(d, path.value, signal);
  if (!target.ok) return target;
  let r;
  try {
    r = await d.runtime.execSync(target.value.id, cmd.value, 0, signal);
  } catch (err) {
    return refuse(isCriError(err) ? statusForGrpc(err.status) : 500, `runtime ExecSync in ${target.value.what} failed: ${message(err)}`);
  }
  if (r.exitCode !== 0) return refuse(500, `command '${cmd.value.join(' ')}' exited with ${r.exitCode}: ${r.stderr.toString('utf8')}`);
  return { ok: true, value: Buffer.concat([r.stdout, r.stderr]) };
}

/** Runs a lookup; a runtime failure in it (listing) becomes a 500 naming the step, never a throw. */
async function guard<T>(f: () => Promise<Parsed<T>>, step: string): Promise<Parsed<T>> {
  try {
    return await f();
  } catch (err) {
    return refuse(isCriError(err) ? statusForGrpc(err.status) : 500, `${step} failed: ${message(err)}`);
  }
}

function answer(res: ServerResponse, r: Refusal): void {
  if (res.headersSent) return void res.end();
  const body = `${r.message}\n`;
  res.writeHead(r.status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
