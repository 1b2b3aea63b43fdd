// The basic routes of the node servers: /healthz, /pods, /runningpods/,
// /configz, /spec/. Built once by the composition root from the state they
// read; each handler reads that state per request and never blocks beyond one
// runtime listing (/runningpods/) or a few /proc reads (/spec/).
import type { RuntimeService } from '../../cri/types.js';
import type { LivenessRegistry } from '../../lifecycle/liveness.js';
import type { AgentLogger } from '../../log/index.js';
import type { StatusStore } from '../../status/store.js';
import type { Route } from '../types.js';
import { healthzReply } from './healthz-check.js';
import { readMachineInfo } from './machine-info.js';
import { podList, runningPodList } from './pods.js';
import { isRoot, notFound, sendJson, sendJsonBody, sendText } from './respond.js';

export interface BasicRouteDeps {
  /** `version` moves on every change: /pods is serialized once per change, not per request. */
  status: Pick<StatusStore, 'all' | 'version'>;
  /** undefined when the agent manages no pods (it then never connects to a runtime): /runningpods/ is an empty list. */
  runtime: RuntimeService | undefined;
  liveness: LivenessRegistry;
  /**
   * The /configz document: the kubelet's `{"kubeletconfig": ...}` as
   * `agentconfig`, and beyond the kubelet `sources` (each field's origin);
   * src/config/print.ts configzDocument builds it. Served as is.
   */
  configz: () => { agentconfig: unknown; sources?: Readonly<Record<string, string>> };
  nodeName: string;
  log: Pick<AgentLogger, 'info'>;
}

export function basicRoutes(d: BasicRouteDeps): Route[] {
  // A scrape loop or a flood of /pods must not cost a sort and a stringify of
  // every pod per request: the list only changes when the store does.
  let podsBody: { version: number; body: Buffer } | undefined;
  const podsJson = (): Buffer => {
    const version = d.status.version;
    if (podsBody?.version !== version) podsBody = { version, body: Buffer.from(JSON.stringify(podList(d.status.all()))) };
    return podsBody.body;
  };
  return [
    {
      path: '/healthz/',
      readOnly: true,
      debugging: false,
      methods: ['GET'],
      handle: async ({ url, res }) => {
        const r = healthzReply(d.liveness, url.pathname.slice('/healthz/'.length), url.searchParams, d.log);
        sendText(res, r.status, r.body);
      },
    },
    {
      path: '/pods',
      readOnly: true,
      debugging: false,
      methods: ['GET'],
      handle: async ({ res }) => sendJsonBody(res, 200, podsJson()),
    },
    {
      path: '/runningpods/',
      readOnly: false,
      debugging: true,
      methods: ['GET'],
      handle: async ({ url, res, signal }) => {
        if (!isRoot(url.pathname, '/runningpods')) return notFound(res);
        const rt = d.runtime;
        const [sandboxes, containers] = rt === undefined ? [[], []] : await Promise.all([rt.listPodSandbox(undefined, signal), rt.listContainers(undefined, signal)]);
        sendJson(res, 200, runningPodList(sandboxes, containers));
      },
    },
    {
      path: '/configz',
      readOnly: false,
      debugging: true,
      methods: ['GET'],
      handle: async ({ res }) => sendJson(res, 200, d.configz()),
    },
    {
      path: '/spec/',
      readOnly: true,
      debugging: false,
      methods: ['GET'],
      handle: async ({ url, res }) => {
        if (!isRoot(url.pathname, '/spec')) return notFound(res);
        sendJson(res, 200, await readMachineInfo('/'));
      },
    },
  ];
}

export { healthzReply, type HealthzReply } from './healthz-check.js';
export { parseCpuinfo, parseMeminfo, readMachineInfo } from './machine-info.js';
export { podList, runningPodList, type PodList } from './pods.js';
