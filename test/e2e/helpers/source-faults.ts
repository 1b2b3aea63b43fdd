// Shared pieces of the pod-source fault suite (test/e2e/source-faults-*.test.ts):
// the log matchers (ONE place: the fixed agent's exact wording is not final,
// so the tests match only the stable parts and these may need adjusting),
// the bad files each case drops into the manifest directory, and the guard
// on the GOOD pod that must run untouched from start to end of every case.
import { execFileSync } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import type { CriRuntime } from '../../../src/cri/grpc-client.js';
import { freePort, type AgentDaemon } from '../../helpers/agent-daemon.js';
import { timedGet } from './process-health.js';
import { container, field, linesMatching, logLine, pod, podContainers, podUid, running, staticName, waitForLineAfter, type Node } from './agent-node.js';
import { skipWithoutRuntime as skipUnlessRuntime, useRuntime } from './e2e-env.js';
import type { LocalRuntime } from './local-runtime.js';

// ---------------------------------------------------------------- matchers

/** Stable parts of the messages the fault suite looks for. Adjust here when the wording settles. */
export const MSG = {
  /** One line per bad manifest file (fields path= the file, err= the reason). */
  badFile: 'Could not process manifest file',
  /** The URL source keeps its last good pods (fields url=, err=). */
  badUrl: 'Could not read pods from the manifest URL; keeping the last pods it gave',
  urlBack: 'Manifest URL is readable again',
  /** What the landed agent logs when a whole scan dies: must never appear. */
  scanFailed: 'Pod manifest scan failed',
  agentFailed: 'Agent failed',
  maxListeners: 'MaxListenersExceededWarning',
} as const;

/** Distinctive parts of each reason (tested against the whole log line, case-insensitive). */
export const REASON = {
  aliasBomb: /alias/i,
  unresolvedAlias: /alias|anchor/i,
  noPod: /empty|no (pod|document|object|content)|comment|null/i,
  symlinkLoop: /ELOOP|loop|symbolic/i,
  fifo: /fifo|pipe|special|not a regular file/i,
  socket: /socket|special|not a regular file/i,
  device: /device|special|not a regular file/i,
  tooLarge: /10 ?M|too (large|big)|larger|size|limit|exceed/i,
  /** A YAML syntax error names a real line. */
  syntaxLine: /line [1-9]\d*/i,
  notLineUnknown: /line \?/,
} as const;

/** Keys under which a log line may name a manifest file. */
const PATH_KEYS = ['path', 'file', 'manifest'] as const;

/** Lines (after `after`) naming `path` in one of PATH_KEYS: what "the bad file is logged once" counts. */
export const linesNaming = (agent: AgentDaemon, path: string, after = 0): string[] =>
  linesMatching(agent, (l) => PATH_KEYS.some((k) => field(l, k) === path), after);

/** Lines saying a whole scan or the agent failed: a fault must stay with its file. */
export const fatalLines = (agent: AgentDaemon, after = 0): string[] =>
  linesMatching(agent, (l) => l.includes(`] ${MSG.scanFailed}`) || l.includes(`] ${MSG.agentFailed}`), after);

/**
 * Waits for the agent's "all components ready"; rejects at once when it logs
 * `Agent failed` (the landed agent then lives on without serving, issue 13.2)
 * or exits, instead of waiting out the deadline.
 */
export async function startedOrFailed(agent: AgentDaemon, timeoutMs = 20_000): Promise<void> {
  const line = await waitForLineAfter(agent, (l) => /all components ready/.test(l) || l.includes(`] ${MSG.agentFailed}`), { timeoutMs });
  if (line.includes(MSG.agentFailed)) throw new Error(`the agent failed to start: ${line}\n--- agent stderr ---\n${agent.stderr}`);
}

// ---------------------------------------------------------------- manifests

/** A YAML document expanding to 10^9 nodes through nested aliases ("billion laughs"). */
export function aliasBomb(): string {
  let text = 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n';
  for (let i = 1; i < 10; i++) text += `a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]\n`;
  return text;
}

/** A valid pod manifest (JSON) padded with `bytes` spaces after it: big without being slow to parse. */
export function paddedPod(name: string, bytes: number): string {
  return JSON.stringify(pod(name, [container('main')])) + ' '.repeat(bytes);
}

/** 1.2 MB of malformed YAML (an unclosed flow sequence) that the `yaml` parser chews on for seconds. */
export const slowMalformedYaml = (): string => `[${'abc, '.repeat(240_000)}`;

/**
 * The ways one file can be bad, each made at `path` (`node` for writes).
 * Returns a cleanup for what is not a plain file (a listening socket).
 */
export interface BadFile {
  name: string;
  reason: RegExp;
  /** Whether the line must be the `Could not process manifest file` message (special files may be skipped with another). */
  exactMessage: boolean;
  make(node: Node, file: string): (() => void) | void;
}

const text = (content: string) => (node: Node, file: string): void => {
  node.writeManifest(file, content);
};

export const BAD_FILES: readonly BadFile[] = [
  // The control: a decode error, which the landed agent already keeps with its file.
  { name: 'a pod without an image', reason: /image/, exactMessage: true, make: text('apiVersion: v1\nkind: Pod\nmetadata:\n  name: noimage\nspec:\n  containers:\n  - name: main\n') },
  { name: 'a YAML alias bomb', reason: REASON.aliasBomb, exactMessage: true, make: text(aliasBomb()) },
  { name: 'an unresolved alias', reason: REASON.unresolvedAlias, exactMessage: true, make: text('a: *undefined\n') },
  { name: 'a file holding only a comment', reason: REASON.noPod, exactMessage: true, make: text('# nothing here yet\n') },
  { name: 'a manifest over 10 MB', reason: REASON.tooLarge, exactMessage: true, make: text(paddedPod('huge', 11 << 20)) },
  { name: 'a YAML syntax error', reason: REASON.syntaxLine, exactMessage: true, make: text('apiVersion: v1\nkind: Pod\nmetadata:\n  name: broken\n  labels: {a: b\nspec:\n  containers: []\n') },
  {
    name: 'a symlink loop',
    reason: REASON.symlinkLoop,
    exactMessage: false,
    make: (node, file) => symlinkSync(file, join(node.manifests, file)),
  },
  {
    name: 'a FIFO',
    reason: REASON.fifo,
    exactMessage: false,
    make: (node, file) => {
      execFileSync('mkfifo', [join(node.manifests, file)]);
    },
  },
  {
    name: 'a character device',
    reason: REASON.device,
    exactMessage: false,
    make: (node, file) => {
      execFileSync('mknod', [join(node.manifests, file), 'c', '1', '3']);
    },
  },
  {
    name: 'a unix socket',
    reason: REASON.socket,
    exactMessage: false,
    make: (node, file) => {
      const server: Server = createServer();
      server.listen(join(node.manifests, file));
      return () => server.close();
    },
  },
];

/** Writes `content` to the file in place (not atomically): what a plain `cp` or `>` does. */
export function writeInPlace(node: Node, file: string, content: string): string {
  const p = join(node.manifests, file);
  writeFileSync(p, content);
  return p;
}

// ---------------------------------------------------------------- the good pod

export interface GoodPod {
  uid: string;
  containerId: string;
  /** Throws unless the pod still runs its first container, never restarted (and, when given, /healthz answers 200 within 1 s). */
  check(): Promise<void>;
}

export interface GuardOptions {
  /** The static pod's name (default `good`); it has one container, `main`. */
  name?: string;
  timeoutMs?: number;
  /** A /healthz URL (see healthzEndpoint) that check() also asks. */
  healthz?: string;
}

/** /healthz must answer within this at every check: a functional bound, not a performance figure. */
export const HEALTHZ_MS = 1_000;

/** Waits for the static pod to run, and returns a guard on it. */
export async function guardPod(agent: AgentDaemon, cri: CriRuntime, opts: GuardOptions = {}): Promise<GoodPod> {
  const { name = 'good', timeoutMs = 20_000, healthz } = opts;
  const uid = await podUid(agent, name, { timeoutMs });
  const first = await running(cri, uid, 'main', timeoutMs, agent);
  return {
    uid,
    containerId: first.id,
    async check() {
      const now = await podContainers(cri, uid);
      const summary = JSON.stringify(now.map((c) => ({ id: c.id, state: c.state, restarts: c.restartCount })));
      if (now.length !== 1 || now[0]!.id !== first.id || now[0]!.state !== 'RUNNING' || now[0]!.restartCount !== 0) {
        throw new Error(`the good pod ${staticName(name)} was disturbed: first container ${first.id}, now ${summary}\n--- agent stderr ---\n${agent.stderr}`);
      }
      const removed = linesMatching(agent, (l) => (/\] Tearing down/.test(l) && field(l, 'podUID') === uid) || logLine('Pod changed', { pod: staticName(name) })(l));
      if (removed.length > 0) throw new Error(`the good pod was changed or torn down: ${removed.join('\n')}`);
      if (healthz !== undefined) {
        const r = await timedGet(healthz, 5_000);
        if (r.status !== 200 || r.ms >= HEALTHZ_MS) throw new Error(`/healthz: ${r.error ?? `HTTP ${r.status}`} after ${Math.round(r.ms)} ms\n--- agent stderr ---\n${agent.stderr}`);
      }
    },
  };
}

// ---------------------------------------------------------------- a manifest URL

/** What the manifest server answers: a body (sent whole, with a Content-Length, or as `head` and `chunks` copies of `chunk` without one) or a bare status. */
export type Answer = string | number | { head?: string; chunks: number; chunk: string };

export interface ManifestServer {
  url: string;
  /** Requests answered so far. */
  readonly requests: number;
  stop(): Promise<void>;
}

/** A manifest server on a free loopback port answering every GET with `answer()`. */
export async function serveManifest(answer: () => Answer): Promise<ManifestServer> {
  let requests = 0;
  const server = createHttpServer((req, res) => {
    requests++;
    const a = answer();
    if (typeof a === 'number') res.writeHead(a).end();
    else if (typeof a === 'string') res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(a) }).end(a);
    else {
      // Chunked, written as the client reads: a client that stops reading stops the stream.
      res.writeHead(200, { 'content-type': 'application/json' });
      if (a.head !== undefined) res.write(a.head);
      let sent = 0;
      const more = (): void => {
        while (sent < a.chunks) {
          sent++;
          if (!res.write(a.chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      res.on('error', () => undefined);
      more();
    }
  });
  const port = await freePort();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${port}/pods`,
    get requests() {
      return requests;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** What the first line naming `path` says about it: the line without its klog header and without the path itself (so a random temp name cannot match a reason). */
export function reasonFor(agent: AgentDaemon, path: string, after = 0): string {
  const line = linesNaming(agent, path, after)[0] ?? '';
  return line.slice(line.indexOf('] ') + 2).split(path).join('<path>');
}

/** The private containerd and CRI client of a describe block (e2e-env.ts). Read `rt` and `cri` inside tests only. */
export const sharedRuntime = (): { readonly rt: LocalRuntime; readonly cri: CriRuntime } => useRuntime();

/** Whether a source-fault e2e file skips itself (e2e-env.ts). */
export const skipWithoutRuntime = (): boolean => skipUnlessRuntime('pod source fault');
