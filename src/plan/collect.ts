// What `--print-plan` reads, once and without changing anything: the pod
// sources (the same file and URL source components the agent runs, stopped
// after their first answer, so naming, defaults and bad-input handling are
// the agent's own), admission against the pod cap, and the runtime (one
// relist and the images the declared pods name). Effects only; the decisions
// are plan.ts'.
import { cpus } from 'node:os';
import { effectiveMaxPods } from '../config/effective.js';
import { resolveFeatureGates } from '../config/featuregates.js';
import type { ResolvedConfig } from '../config/resolve.js';
import type { AgentLogger } from '../log/index.js';
import type { Component } from '../lifecycle/index.js';
import { hostIP, nodeName } from '../node/index.js';
import type { Pod } from '../pod-model/pod-types.js';
import { admitOnNode } from '../pods/admission.js';
import { createSysctlAllowlist, type SysctlAllowlist } from '../pods/sysctls.js';
import { newStatusCache, observeAll } from '../runtime-view/observe.js';
import type { ObservedPod } from '../runtime-view/observed.js';
import { configuredSourceNames, createConfiguredSources, createManifestParser, PodConfigMerger, type SourceName } from '../sources/index.js';
import { volumeWaits } from '../volumes/index.js';
import type { DeclaredPod, PlanInput } from './plan.js';

/** How long the sources get for their first answer, and the runtime for its handshake. */
export const PLAN_READ_TIMEOUT_MS = 30_000;

/** The SidecarContainers gate as the agent would run with it. */
const sidecarsOn = (r: ResolvedConfig): boolean => resolveFeatureGates(r.config.featureGates ?? {}).gates['SidecarContainers'] === true;

const ORIGIN: Record<SourceName, string> = { file: 'from --pod-manifest-path', http: 'from --manifest-url', api: 'from the API server' };

interface SourceAnswers {
  pods: Map<SourceName, Pod[]>;
  unread: SourceName[];
}

/** Runs each configured source until its first answer (or the timeout), then stops it. */
async function readSourcesOnce(r: ResolvedConfig, node: string, log: AgentLogger, signal: AbortSignal): Promise<SourceAnswers> {
  const { config: cfg } = r;
  const pods = new Map<SourceName, Pod[]>();
  const parser = createManifestParser({ log: log.child({ component: 'manifest-parser' }) });
  const components = createConfiguredSources({ cfg, node, sidecars: sidecarsOn(r), parser, log, onPods: (source, p) => pods.set(source, p) }).map((s): [SourceName, Component] => [s.name, s.component]);
  const stop = new AbortController();
  const onAbort = (): void => stop.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => stop.abort(new Error('timed out')), PLAN_READ_TIMEOUT_MS);
  try {
    const runs = components.map(([, c]) => c.run(stop.signal).catch(() => undefined));
    const ready = Promise.all(components.map(([, c]) => c.ready.catch(() => undefined)));
    await Promise.race([ready, new Promise((res) => stop.signal.addEventListener('abort', res, { once: true }))]);
    stop.abort(new Error('read once'));
    await Promise.all(runs);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    await parser.close();
  }
  return { pods, unread: components.map(([name]) => name).filter((name) => !pods.has(name)) };
}

/** The declared pods in the sources' order, with admission (sysctls, the pod cap) applied as the loop would. */
function admit(answers: SourceAnswers, sources: readonly SourceName[], rules: { maxPods: number; sysctls: SysctlAllowlist }): DeclaredPod[] {
  const merger = new PodConfigMerger(sources);
  const out: DeclaredPod[] = [];
  let active = 0;
  for (const [source, pods] of answers.pods) {
    const { updates, rejected } = merger.set(source, pods);
    for (const x of rejected) out.push({ pod: x.pod, origin: ORIGIN[x.source], rejected: { reason: 'Duplicate', message: x.reason } });
    for (const u of updates) {
      if (u.op !== 'ADD') continue;
      const admission = admitOnNode(u.pod, active, rules);
      if (admission.admitted) active++;
      out.push({ pod: u.pod, origin: ORIGIN[u.source], ...(admission.admitted ? {} : { rejected: { reason: admission.reason, message: admission.message } }) });
    }
  }
  return out;
}

export interface CollectedPlan {
  input: PlanInput;
  /** Facts the operator should read before the plan (which node, which sources could not be read). */
  notes: string[];
}

/** Reads the sources and the runtime once. Rejects when the runtime cannot be reached. */
export async function collectPlanInput(r: ResolvedConfig, log: AgentLogger, signal: AbortSignal): Promise<CollectedPlan> {
  const { config: cfg, flags } = r;
  const node = { name: nodeName(flags.hostnameOverride), ip: hostIP(flags.nodeIP) };
  const sources = configuredSourceNames(cfg);
  const notes = [`node ${node.name} (${node.ip}); runtime ${cfg.containerRuntimeEndpoint}`];
  if (sources.length === 0) notes.push('no pod source is configured (--pod-manifest-path, --manifest-url): the agent would run no pod');
  const answers = await readSourcesOnce(r, node.name, log, signal);
  for (const s of answers.unread) notes.push(`the ${s === 'file' ? '--pod-manifest-path' : '--manifest-url'} source gave no answer: its pods are unknown`);
  const admitted = admit(answers, sources, { maxPods: effectiveMaxPods(cfg, cpus().length), sysctls: createSysctlAllowlist(cfg.allowedUnsafeSysctls) });
  const declared: DeclaredPod[] = [];
  for (const d of admitted) {
    const waits = d.rejected ? [] : await volumeWaits(d.pod);
    declared.push(waits.length > 0 ? { ...d, volumeWaits: waits } : d);
  }

  const { createCriRuntime } = await import('../cri/index.js');
  const runtime = await createCriRuntime({
    runtimeEndpoint: cfg.containerRuntimeEndpoint,
    imageEndpoint: cfg.imageServiceEndpoint,
    requestTimeoutMs: cfg.runtimeRequestTimeout,
    // A plan is asked for now: the runtime gets one request timeout to answer, not the start-up wait.
    connectTimeoutMs: Math.min(cfg.runtimeRequestTimeout, PLAN_READ_TIMEOUT_MS),
    log: log.child({ component: 'cri' }),
    signal,
  });
  try {
    const observed: Map<string, ObservedPod> = await observeAll(runtime, newStatusCache(), signal);
    const images = new Set(declared.flatMap((d) => [...(d.pod.spec.initContainers ?? []), ...d.pod.spec.containers].map((c) => c.image)));
    const present = new Map<string, boolean>();
    for (const image of images) present.set(image, (await runtime.imageStatus(image, signal)) !== undefined);
    return { input: { declared, observed, imagePresent: (image) => present.get(image) === true, unreadSources: answers.unread, sidecars: sidecarsOn(r) }, notes };
  } finally {
    runtime.close();
  }
}
