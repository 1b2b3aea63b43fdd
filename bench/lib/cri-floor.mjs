// The floor of the pod benchmarks: the CRI calls the agent makes for a pod,
// issued directly with the project's own CRI client and the sandbox and
// container configs the agent builds, so what a benchmark measures above it
// is the agent's own cost. Shared by bench/pods.mjs and bench/cluster.mjs.
//
// Floor pods carry the agent's labels under another prefix of the same
// length, so an agent running on the same containerd (whose relist selects
// io.platform.agent.managed=true) never takes them for orphans.
import { mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BenchError, ms, now, sleep } from './common.mjs';
import { manifest } from './pod-manifest.mjs';

// The agent's runtime labels (src/runtime-view/labels.ts).
export const LABEL_POD_NAME = 'io.platform.pod.name';
export const LABEL_MANAGED = 'io.platform.agent.managed';
const AGENT_PREFIX = 'io.platform.';
const FLOOR_PREFIX = 'io.benchflr.';
export const FLOOR_POD_NAME = `${FLOOR_PREFIX}pod.name`;
export const FLOOR_MANAGED = `${FLOOR_PREFIX}agent.managed`;
export const POD_LOGS_DIR = '/var/log/pods'; // where the agent puts pod log directories

const RUNNING_TIMEOUT_MS = 30_000; // one floor container: start -> RUNNING
const POLL_MS = 2; // containerStatus polls of one floor container
const MAX_POLLS = 50_000;
export const BATCH_TIMEOUT_MS = 240_000; // a batch up or down
// The batch watcher lists up to 110 containers per poll, for the floor and the
// agent alike; every 50 ms it costs containerd little and quantizes a ~8 s total by < 1 %.
export const BATCH_POLL_MS = 50;
const CRI_CLEANUP_CONCURRENCY = 10;

/** The project's modules the floor needs (dist/), loaded once per process. */
export async function loadFloorDist(repo) {
  const imp = (p) => import(pathToFileURL(join(repo, 'dist', p)).href);
  const [cri, manifestMod, sandbox, container, resolvConf] = await Promise.all([imp('cri/grpc-client.js'), imp('sources/manifest.js'), imp('pods/sandbox-config.js'), imp('pods/container-config.js'), imp('pods/resolv-conf.js')]);
  let hostResolv;
  try {
    hostResolv = resolvConf.parseResolvConf(readFileSync('/etc/resolv.conf', 'utf8'));
  } catch {
    hostResolv = undefined;
  }
  return {
    createCriRuntime: cri.createCriRuntime,
    podFromFile: manifestMod.podFromFile,
    sandboxConfig: sandbox.sandboxConfig,
    containerConfig: container.containerConfig,
    // What the agent passes with its default flags (createSyncDeps in src/pods/index.ts).
    sandboxSettings: { dns: { clusterDNS: [], clusterDomain: '', host: () => hostResolv }, podLogsDir: POD_LOGS_DIR, cgroupParent: '' },
    containerSettings: { cpuCFSQuota: true, cpuCFSQuotaPeriodMs: 100, memoryCapacity: os.totalmem() },
  };
}

/**
 * The floor over `cri` (the project's CRI client, connected). `tmp`: where
 * emptyDir paths would go; `logDirs`: a Set the caller removes at its
 * clean-up (the pod log directories the floor creates are added to it);
 * `nodeName`: the agent's --hostname-override (static pods are named
 * <name>-<node>).
 */
export function createCriFloor({ dist, cri, nodeName, tmp, logDirs }) {
  const containerSettings = { ...dist.containerSettings, seccompDefault: false, emptyDirPath: (pod, v) => join(tmp, 'floor-volumes', pod.metadata.uid, v) };
  const relabel = (labels) => Object.fromEntries(Object.entries(labels).map(([k, v]) => [k.startsWith(AGENT_PREFIX) ? FLOOR_PREFIX + k.slice(AGENT_PREFIX.length) : k, v]));

  /** The pod as the agent's file source decodes it (static-pod name, UID, defaults). */
  function decode(text, location) {
    const res = dist.podFromFile(text, { node: nodeName, source: 'file', location, now: new Date() });
    if (!res.ok) throw new BenchError(`benchmark manifest rejected by the project's decoder: ${res.error}`);
    return res.pods[0];
  }

  /** The sandbox and container configs the agent would send for this pod (labels re-prefixed). */
  function configs(name) {
    const pod = decode(manifest(name), join(tmp, 'floor-manifests', `${name}.yaml`));
    const sb = dist.sandboxConfig(pod, 0, dist.sandboxSettings);
    sb.labels = relabel(sb.labels);
    const facts = { nodeName, hostIP: '127.0.0.1', podIP: '127.0.0.1', podIPs: ['127.0.0.1'] };
    const cc = dist.containerConfig(pod, pod.spec.containers[0], 'container', 0, facts, containerSettings);
    cc.labels = relabel(cc.labels);
    // The agent creates these before its CRI calls too; outside the measured time here.
    logDirs.add(sb.logDirectory);
    mkdirSync(join(sb.logDirectory, 'c'), { recursive: true });
    return { name: pod.metadata.name, sb, cc };
  }

  async function containerRunning(id) {
    const start = now();
    for (let i = 0; i < MAX_POLLS && ms(start, now()) < RUNNING_TIMEOUT_MS; i++) {
      const s = await cri.containerStatus(id);
      if (s.state === 'RUNNING') return;
      if (s.state === 'EXITED') throw new BenchError(`container ${id} exited (code ${s.exitCode}, ${s.reason}) instead of running`);
      await sleep(POLL_MS);
    }
    throw new BenchError(`container ${id}: not RUNNING within ${RUNNING_TIMEOUT_MS} ms`);
  }

  /** The floor's batch: `cfgs` through `level` workers, each pod run sandbox -> create -> start -> containerStatus RUNNING. */
  function pool(cfgs, level, onRunning) {
    let next = 0;
    const worker = async () => {
      while (next < cfgs.length) {
        const c = cfgs[next++];
        const sandboxId = await cri.runPodSandbox(c.sb, '');
        const id = await cri.createContainer(sandboxId, c.cc, c.sb);
        await cri.startContainer(id);
        await containerRunning(id);
        onRunning();
      }
    };
    return Promise.all(Array.from({ length: level }, worker));
  }

  /** Stops and removes sandboxes (and their containers) matching `pick`, through CRI, a few at a time. */
  async function remove(pick = isFloorSandbox) {
    const sbs = (await cri.listPodSandbox()).filter(pick);
    let next = 0;
    const worker = async () => {
      while (next < sbs.length) {
        const sb = sbs[next++];
        const cts = await cri.listContainers({ podSandboxId: sb.id });
        for (const c of cts) {
          if (c.state === 'RUNNING' || c.state === 'UNKNOWN') await cri.stopContainer(c.id, 0);
          await cri.removeContainer(c.id);
        }
        await cri.stopPodSandbox(sb.id);
        await cri.removePodSandbox(sb.id);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CRI_CLEANUP_CONCURRENCY, sbs.length) }, worker));
    return sbs.length;
  }

  /**
   * The batch observer, the same for the floor and the agent: lists the RUNNING
   * containers carrying `managedLabel` every BATCH_POLL_MS until every pod of
   * `want` (by `nameLabel`) has shown; resolves with each pod's first sighting
   * (ms after `t0`). One instrument for both sides: its own cost (a list of up
   * to 110 containers per poll) falls on both alike.
   */
  async function watchBatch(managedLabel, nameLabel, want, t0, what, onTimeout = () => '') {
    const firstSeen = new Map();
    let polls = 0;
    while (firstSeen.size < want.size) {
      if (polls >= MAX_POLLS || ms(t0, now()) > BATCH_TIMEOUT_MS) throw new BenchError(`${what}: ${firstSeen.size}/${want.size} pods RUNNING after ${BATCH_TIMEOUT_MS} ms${onTimeout()}`);
      polls++;
      const list = await cri.listContainers({ state: 'RUNNING', labelSelector: { [managedLabel]: 'true' } });
      const at = ms(t0, now());
      for (const c of list) {
        const n = c.labels[nameLabel];
        if (want.has(n) && !firstSeen.has(n)) firstSeen.set(n, at);
      }
      if (firstSeen.size < want.size) await sleep(BATCH_POLL_MS);
    }
    return { firstSeen, polls };
  }

  return { decode, configs, containerRunning, pool, remove, watchBatch };
}

export const isFloorSandbox = (sb) => FLOOR_POD_NAME in sb.labels;
