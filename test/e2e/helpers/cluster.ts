// What the API-server-mode e2e files share: a platformconfig for the e2e node against a test server, reading
// an object as JSON, a condition's status, waiting for a pod to run. Blocking only on the server.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiClient } from '../../conformance/helpers/api-client.js';
import { USERS, type ServerHandle } from '../../conformance/helpers/server.js';
import type { AgentDaemon } from '../../helpers/agent-daemon.js';
import { waitFor } from './agent-node.js';

export type Obj = {
  metadata: { name: string; uid: string; resourceVersion?: string; annotations?: Record<string, string>; ownerReferences?: Array<{ kind: string; name: string }> };
  status?: Record<string, unknown>;
  spec?: Record<string, unknown>;
};

/** A platformconfig at `dir/file` for the server with its CA and one bearer token (the e2e node's unless told). */
export function nodeConfig(dir: string, srv: ServerHandle, token: string = USERS.e2eNode.token, file = 'agent.conf'): string {
  const path = join(dir, file);
  const ca = Buffer.from(srv.ca).toString('base64');
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: e2e\n  cluster:\n    server: ${srv.url}\n    certificate-authority-data: ${ca}`,
      'users:',
      `- name: node\n  user:\n    token: ${token}`,
      'contexts:',
      '- name: e2e\n  context:\n    cluster: e2e\n    user: node',
      'current-context: e2e',
      '',
    ].join('\n'),
  );
  return path;
}

/** The object at `path`, or undefined for any answer but 200. */
export async function getJson(api: ApiClient, path: string): Promise<Obj | undefined> {
  const r = await api.get(path);
  return r.status === 200 ? (r.json() as Obj) : undefined;
}

export const condition = (o: Obj | undefined, type: string): string | undefined =>
  ((o?.status?.['conditions'] as Array<{ type: string; status: string }> | undefined) ?? []).find((c) => c.type === type)?.status;

/** Waits (up to 60 s) for the pod at `path` to be Running and Ready in the API; returns it. */
export function runningInApi(api: ApiClient, path: string, agent: AgentDaemon, what = `${path} Running and Ready in the API`): Promise<Obj> {
  return waitFor(what, 60_000, async () => {
    const p = await getJson(api, path);
    return p?.status?.['phase'] === 'Running' && condition(p, 'Ready') === 'True' ? p : undefined;
  }, agent);
}

export const LEASE_PATH = (node: string): string => `/apis/coordination.platform.io/v1/namespaces/platform-node-lease/leases/${node}`;

/** The lease's spec.renewTime (as text), or undefined. */
export const renewTime = (l: Obj | undefined): string | undefined => (l?.spec?.['renewTime'] as string | undefined) ?? undefined;

/** The `default` ServiceAccount the pods run as (no service-account controller runs in these servers): made once, 409 taken as made. */
export async function createDefaultServiceAccount(srv: ServerHandle): Promise<void> {
  const r = await srv.admin.post('/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
  if (r.status !== 201 && r.status !== 409) throw new Error(`creating the default ServiceAccount: ${r.status} ${r.text()}`);
}
