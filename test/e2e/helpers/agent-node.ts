// End-to-end harness around the built agent (bin/agent.js) and a real
// containerd from local-runtime.ts: a temporary "node" (manifest directory,
// --root-dir), the operator's command line, log-line waits that look only at
// what came after a mark, and a CRI view of what the runtime really holds
// (through the project's own gRPC client: states, labels, start times).
//
//   const rt = await startLocalRuntime();                   // beforeAll
//   const cri = await criClient(rt);
//   const node = createNode(rt, cri);                       // per test
//   node.writeManifest('web.yaml', pod('web', [sleeper('httpd')]));
//   const agent = await node.start();
//   const uid = await podUid(agent, 'web');
//   await waitFor('web running', 15_000, async () => ...);
//   await node.dispose();                                   // afterEach: agents, pods, temp dir
//
// Everything is bounded in time; a timeout message carries the agent's log.
import { mkdtempSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { createCriRuntime, type CriRuntime } from '../../../src/cri/grpc-client.js';
import type { ContainerState } from '../../../src/cri/types.js';
import { freePort, killAllDaemons, startAgent, type AgentDaemon } from '../../helpers/agent-daemon.js';
import type { LocalRuntime } from './local-runtime.js';

/** --hostname-override of every e2e agent: static pods are named NAME-e2e-node. */
export const NODE = 'e2e-node';

/** The runtime labels and annotations the agent's conventions promise (kubelet's, renamed). */
export const LABEL_POD_UID = 'io.platform.pod.uid';
export const LABEL_CONTAINER_NAME = 'io.platform.container.name';
export const ANN_RESTART_COUNT = 'io.platform.container.restartCount';

export const BUSYBOX = 'localhost/busybox:latest';

/** Where the agent (like the kubelet) puts container logs. */
export const POD_LOGS = '/var/log/pods';

/** A long-running command that exits at once on SIGTERM (so teardown does not wait for the grace period). */
export const SLEEP_FOREVER = ['sh', '-c', "trap 'exit 0' TERM; while true; do sleep 1 & wait; done"];

// ---------------------------------------------------------------- manifests

export interface ContainerSpec {
  name: string;
  image?: string;
  imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  command?: string[];
  [k: string]: unknown;
}

export function container(name: string, command: string[] = SLEEP_FOREVER, extra: Partial<ContainerSpec> = {}): ContainerSpec {
  return { name, image: BUSYBOX, imagePullPolicy: 'IfNotPresent', command, ...extra };
}

/** A host-network static pod manifest (as an object; writeManifest serializes it as YAML). */
export function pod(name: string, containers: ContainerSpec[], spec: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { hostNetwork: true, terminationGracePeriodSeconds: 2, containers, ...spec },
  };
}

/** The full name a static pod gets on this node. */
export const staticName = (name: string): string => `default/${name}-${NODE}`;

// ---------------------------------------------------------------- waiting

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `fn` until it returns something other than undefined/false (errors
 * count as "not yet": the runtime may be restarting). Rejects at the deadline
 * with the last value or error and, when given, the agent's log.
 */
export async function waitFor<T>(what: string, timeoutMs: number, fn: () => Promise<T | undefined | false> | T | undefined | false, agent?: AgentDaemon, intervalMs = 100): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown = 'not tried';
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
      last = v;
    } catch (e) {
      last = e;
    }
    if (Date.now() >= end) {
      const shown = last instanceof Error ? last.message : typeof last === 'bigint' ? String(last) : JSON.stringify(last, (_, x: unknown) => (typeof x === 'bigint' ? String(x) : x));
      throw new Error(`${what}: not within ${timeoutMs} ms (last: ${shown})${agent ? `\n--- agent stderr ---\n${agent.stderr}` : ''}`);
    }
    await sleep(intervalMs);
  }
}

/** Number of complete stderr lines so far: a mark for waitForLineAfter. */
export const mark = (agent: AgentDaemon): number => agent.lines().length;

/** The first stderr line after `after` matching `re`; rejects at the deadline or when the agent exits. */
export async function waitForLineAfter(agent: AgentDaemon, re: RegExp | ((line: string) => boolean), opts: { after?: number; timeoutMs?: number } = {}): Promise<string> {
  const after = opts.after ?? 0;
  const test = typeof re === 'function' ? re : (l: string) => re.test(l);
  const ms = opts.timeoutMs ?? 10_000;
  const end = Date.now() + ms;
  for (;;) {
    const hit = agent.lines().slice(after).find(test);
    if (hit !== undefined) return hit;
    if (!agent.running) throw new Error(`agent exited (${JSON.stringify(agent.exit)}) before a line matching ${re}\n--- agent stderr ---\n${agent.stderr}`);
    if (Date.now() >= end) throw new Error(`no agent line matching ${re} within ${ms} ms\n--- agent stderr ---\n${agent.stderr}`);
    await sleep(50);
  }
}

export const linesMatching = (agent: AgentDaemon, re: RegExp | ((line: string) => boolean), after = 0): string[] =>
  agent.lines().slice(after).filter(typeof re === 'function' ? re : (l) => re.test(l));

/** A line predicate: message `msg` with each of `fields` (key="value", any order). */
export function logLine(msg: string, fields: Record<string, string | number> = {}): (line: string) => boolean {
  return (line) => line.includes(`] ${msg} `) || line.endsWith(`] ${msg}`) ? Object.entries(fields).every(([k, v]) => field(line, k) === String(v)) : false;
}

/** Regex-safe text. */
export const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * `key="value"` of a structured log line (text format), read pair by pair
 * from the left so that `k=v` inside an earlier quoted value is not taken.
 */
export function field(line: string, key: string): string | undefined {
  const pairs = /(?:^|\s)([A-Za-z_][\w.-]*)=("(?:[^"\\]|\\.)*"|\S*)/g;
  for (let m = pairs.exec(line); m !== null; m = pairs.exec(line)) {
    if (m[1] !== key) continue;
    const v = m[2]!;
    return v.startsWith('"') ? (JSON.parse(v) as string) : v;
  }
  return undefined;
}

/** Milliseconds since midnight of a klog header (`I1122 03:45:35.262000 ...`). */
export function logTimeMs(line: string): number {
  const m = /^[IWEF]\d{4} (\d{2}):(\d{2}):(\d{2})\.(\d{3})/.exec(line);
  if (!m) throw new Error(`no klog timestamp in ${line}`);
  return ((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000 + Number(m[4]);
}

/** Waits for "Pod added" of static pod `name` and returns its UID. */
export async function podUid(agent: AgentDaemon, name: string, opts: { after?: number; timeoutMs?: number } = {}): Promise<string> {
  const line = await waitForLineAfter(agent, logLine('Pod added', { pod: staticName(name) }), opts);
  const uid = field(line, 'podUID');
  if (!uid) throw new Error(`no podUID in ${line}`);
  return uid;
}

/** Waits for the pod's phase to change to `phase` (after the mark). */
export function phase(agent: AgentDaemon, name: string, to: string, opts: { after?: number; timeoutMs?: number } = {}): Promise<string> {
  return waitForLineAfter(agent, logLine('Pod phase changed', { pod: staticName(name), to }), opts);
}

// ---------------------------------------------------------------- CRI view

export interface SeenContainer {
  id: string;
  name: string;
  sandboxId: string;
  state: ContainerState;
  restartCount: number;
  createdAt: bigint;
  startedAt: bigint;
  finishedAt: bigint;
  exitCode: number;
  reason: string;
  image: string;
  imageRef: string;
  /** Where the runtime writes the container's output (CRI log format). */
  logPath: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface SeenSandbox {
  id: string;
  state: 'READY' | 'NOTREADY';
  labels: Record<string, string>;
}

/** The test's own CRI client to the runtime (the project's client; reconnects after a runtime restart). */
export function criClient(rt: LocalRuntime): Promise<CriRuntime> {
  const quiet = { info() {}, warn() {}, error() {} };
  return createCriRuntime({ runtimeEndpoint: rt.endpoint, requestTimeoutMs: 10_000, connectTimeoutMs: 20_000, log: quiet });
}

/** Every container the runtime holds for pod `uid` (oldest first), with its status. */
export async function podContainers(cri: CriRuntime, uid: string): Promise<SeenContainer[]> {
  const list = await cri.listContainers({ labelSelector: { [LABEL_POD_UID]: uid } });
  const out: SeenContainer[] = [];
  for (const c of list) {
    let st;
    try {
      st = await cri.containerStatus(c.id);
    } catch {
      continue; // removed meanwhile
    }
    out.push({
      id: c.id,
      name: c.labels[LABEL_CONTAINER_NAME] ?? c.metadata.name,
      sandboxId: c.podSandboxId,
      state: st.state,
      restartCount: Number(c.annotations[ANN_RESTART_COUNT] ?? 'NaN'),
      createdAt: c.createdAt,
      startedAt: st.startedAt,
      finishedAt: st.finishedAt,
      exitCode: st.exitCode,
      reason: st.reason,
      image: st.image,
      imageRef: st.imageRef,
      logPath: st.logPath,
      labels: c.labels,
      annotations: c.annotations,
    });
  }
  return out.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
}

export async function podSandboxes(cri: CriRuntime, uid: string): Promise<SeenSandbox[]> {
  return (await cri.listPodSandbox({ labelSelector: { [LABEL_POD_UID]: uid } })).map((s) => ({ id: s.id, state: s.state, labels: s.labels }));
}

/** The newest instance of container `name` of pod `uid`. */
export async function latest(cri: CriRuntime, uid: string, name: string): Promise<SeenContainer | undefined> {
  return (await podContainers(cri, uid)).filter((c) => c.name === name).pop();
}

/** Waits until the newest instance of `name` in pod `uid` is RUNNING (and passes `also`); returns it. */
export function running(cri: CriRuntime, uid: string, name: string, timeoutMs: number, agent?: AgentDaemon, also: (c: SeenContainer) => boolean = () => true): Promise<SeenContainer> {
  return waitFor(`container ${name} of pod ${uid} RUNNING`, timeoutMs, async () => {
    const c = await latest(cri, uid, name);
    return c && c.state === 'RUNNING' && also(c) ? c : undefined;
  }, agent);
}

/** Stops and removes every sandbox (and so every container) in the runtime: a clean slate between tests. */
export async function cleanRuntime(cri: CriRuntime): Promise<void> {
  for (const c of await cri.listContainers({})) {
    await cri.stopContainer(c.id, 0).catch(() => undefined);
    await cri.removeContainer(c.id).catch(() => undefined);
  }
  for (const s of await cri.listPodSandbox({})) {
    await cri.stopPodSandbox(s.id).catch(() => undefined);
    await cri.removePodSandbox(s.id).catch(() => undefined);
  }
}

// ---------------------------------------------------------------- the node

export interface Node {
  /** Temporary directory holding manifests/ and root/. */
  readonly dir: string;
  /** --pod-manifest-path. */
  readonly manifests: string;
  /** --root-dir. */
  readonly root: string;
  /** The operator's command line (pass manifestPath: false for a URL-only agent). */
  args(extra?: readonly string[], opts?: { manifestPath?: boolean }): Promise<string[]>;
  /** Starts the agent without waiting for anything. */
  spawn(extra?: readonly string[], opts?: { manifestPath?: boolean; cwd?: string; env?: Record<string, string> }): Promise<AgentDaemon>;
  /** Starts the agent and waits until all its components are ready. */
  start(extra?: readonly string[], opts?: { manifestPath?: boolean; cwd?: string; env?: Record<string, string> }): Promise<AgentDaemon>;
  /** Writes a manifest atomically (dot-file + rename: the agent ignores dot files), YAML for objects. Returns its path. */
  writeManifest(file: string, content: Record<string, unknown> | string): string;
  removeManifest(file: string): void;
  /** Kills the agents, removes every pod from the runtime, removes the temporary directory. */
  dispose(): Promise<void>;
}

export function createNode(rt: LocalRuntime, cri: CriRuntime): Node {
  const dir = mkdtempSync(join(tmpdir(), 'agent-e2e-'));
  const manifests = join(dir, 'manifests');
  const root = join(dir, 'root');
  const agents: AgentDaemon[] = [];
  mkdirSync(manifests);
  mkdirSync(root);
  const node: Node = {
    dir,
    manifests,
    root,
    async args(extra = [], opts = {}) {
      return [
        ...(opts.manifestPath === false ? [] : [`--pod-manifest-path=${manifests}`]),
        `--container-runtime-endpoint=${rt.endpoint}`,
        '--node-ip=127.0.0.1',
        `--hostname-override=${NODE}`,
        `--root-dir=${root}`,
        '--healthz-port=0',
        '--read-only-port=0',
        `--port=${await freePort()}`,
        '--file-check-frequency=1s',
        '--sync-frequency=5s',
        ...extra,
      ];
    },
    async spawn(extra = [], opts = {}) {
      const agent = startAgent(await node.args(extra, opts), { cwd: opts.cwd ?? dir, ...(opts.env ? { env: opts.env } : {}) });
      agents.push(agent);
      return agent;
    },
    async start(extra = [], opts = {}) {
      const agent = await node.spawn(extra, opts);
      await waitForLineAfter(agent, /all components ready/, { timeoutMs: 20_000 });
      return agent;
    },
    writeManifest(file, content) {
      const text = typeof content === 'string' ? content : stringify(content);
      const tmp = join(manifests, `.${file}.tmp`);
      writeFileSync(tmp, text);
      renameSync(tmp, join(manifests, file));
      return join(manifests, file);
    },
    removeManifest(file) {
      rmSync(join(manifests, file));
    },
    async dispose() {
      await killAllDaemons();
      await cleanRuntime(cri).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
      // The agent writes container logs under /var/log/pods/NAMESPACE_NAME_UID (the kubelet's fixed place) and,
      // without a container GC yet, leaves them: remove those of this node's pods.
      const uids = new Set(agents.flatMap((a) => a.lines().filter(logLine('Pod added')).map((l) => field(l, 'podUID') ?? '')).filter((u) => /^[0-9a-f-]{16,}$/.test(u)));
      let entries: string[] = [];
      try {
        entries = readdirSync(POD_LOGS);
      } catch {
        // none
      }
      for (const e of entries) if (uids.has(e.slice(e.lastIndexOf('_') + 1))) rmSync(join(POD_LOGS, e), { recursive: true, force: true });
    },
  };
  return node;
}

/**
 * Checks `fn` every `intervalMs` for `ms`: rejects as soon as it is false (or
 * throws). For "stays so" claims (not restarted, reported once), which need a
 * window of time by nature.
 */
export async function holds(what: string, ms: number, fn: () => Promise<boolean> | boolean, agent?: AgentDaemon, intervalMs = 250): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    let ok: boolean;
    let why = '';
    try {
      ok = await fn();
    } catch (e) {
      ok = false;
      why = ` (${(e as Error).message})`;
    }
    if (!ok) throw new Error(`${what}: stopped holding after ${ms - (end - Date.now())} ms${why}${agent ? `\n--- agent stderr ---\n${agent.stderr}` : ''}`);
    if (Date.now() >= end) return;
    await sleep(Math.min(intervalMs, Math.max(0, end - Date.now())));
  }
}
