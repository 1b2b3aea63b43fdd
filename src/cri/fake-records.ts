// The records and views of FakeRuntime (fake-runtime.ts): what a fake
// container "does", the sandbox and container records a test may inspect, the
// settable clock, and the conversions to what the Runtime interface returns.
// Pure data; no state of its own.

import type { Container, ContainerConfig, ContainerState, PodSandbox, PodSandboxConfig, SandboxState } from './types.js';

/** What a started container "does". Returned by the onStart program; all optional. */
export interface FakeProcess {
  /** Exits this long after it started; absent: runs until stopped. 0: exits at once (a crash loop). */
  exitAfterMs?: number;
  /** Exit code of that exit; default 0. */
  exitCode?: number;
  /** Default 'Completed' for 0, 'Error' otherwise (containerd's reasons); e.g. 'OOMKilled'. */
  reason?: string;
  message?: string;
  /** The start itself fails: StartContainer rejects (UNKNOWN) and the container is EXITED, 128, StartError. */
  startError?: string;
  /** Exit code when StopContainer stops it with a grace period; default 143 (SIGTERM). A zero timeout gives 137. */
  stopExitCode?: number;
}

export type FakeProgram = (config: ContainerConfig, ids: { containerId: string; podSandboxId: string }) => FakeProcess | undefined;

/** A settable clock for deterministic tests. */
export class ManualClock {
  constructor(private ns: bigint = 1_700_000_000_000_000_000n) {}
  readonly now = (): bigint => this.ns;
  advance(ms: number): void {
    this.ns += BigInt(Math.round(ms * 1e6));
  }
}

export interface FakeSandbox {
  readonly id: string;
  readonly config: PodSandboxConfig;
  readonly runtimeHandler: string;
  state: SandboxState;
  readonly createdAt: bigint;
  readonly ip: string;
}

export interface FakeContainer {
  readonly id: string;
  readonly podSandboxId: string;
  readonly config: ContainerConfig;
  readonly imageRef: string;
  state: ContainerState;
  readonly createdAt: bigint;
  startedAt: bigint;
  finishedAt: bigint;
  exitCode: number;
  reason: string;
  message: string;
  process: FakeProcess;
}

export function labelsMatch(labels: Record<string, string>, selector: Record<string, string> | undefined): boolean {
  if (selector === undefined) return true;
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

export function sandboxView(s: FakeSandbox): PodSandbox {
  return {
    id: s.id,
    metadata: { ...s.config.metadata },
    state: s.state,
    createdAt: s.createdAt,
    labels: { ...s.config.labels },
    annotations: { ...s.config.annotations },
    runtimeHandler: s.runtimeHandler,
  };
}

export function containerBase(c: FakeContainer): Omit<Container, 'podSandboxId'> {
  return {
    id: c.id,
    metadata: { ...c.config.metadata },
    image: c.config.image,
    imageRef: c.imageRef,
    state: c.state,
    createdAt: c.createdAt,
    labels: { ...c.config.labels },
    annotations: { ...c.config.annotations },
  };
}

/** Ends a container's run: EXITED at `at` with its code and reason (Completed/Error by default). */
export function finishContainer(c: FakeContainer, at: bigint, exitCode: number, reason?: string, message = ''): void {
  c.state = 'EXITED';
  c.finishedAt = at;
  c.exitCode = exitCode;
  c.reason = reason ?? (exitCode === 0 ? 'Completed' : 'Error');
  c.message = message;
}

/** Lets every running container whose program exits after a delay exit, as of `now`. */
export function settleContainers(containers: Iterable<FakeContainer>, now: bigint): void {
  for (const c of containers) {
    const after = c.process.exitAfterMs;
    if (c.state !== 'RUNNING' || after === undefined) continue;
    const at = c.startedAt + BigInt(Math.round(after * 1e6));
    if (now >= at) finishContainer(c, at, c.process.exitCode ?? 0, c.process.reason, c.process.message ?? '');
  }
}
