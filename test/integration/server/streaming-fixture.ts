// A FakeRuntime with one running pod (default/web, container app) and a
// status store that knows it, for the streaming route tests.
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import { LABEL_CONTAINER_NAME, LABEL_POD_NAME, LABEL_POD_NAMESPACE, LABEL_POD_UID } from '../../../src/runtime-view/labels.js';
import type { PodWithStatus, StatusStore } from '../../../src/status/store.js';
import { fullSandboxConfig, minimalContainerConfig } from '../../unit/cri/cri-fixtures.js';

export const UID = 'uid-web-1';

export interface Fixture {
  runtime: FakeRuntime;
  status: Pick<StatusStore, 'all'>;
  sandboxId: string;
  containerId: string;
}

export async function runningPod(): Promise<Fixture> {
  const runtime = new FakeRuntime({ images: ['busybox'] });
  const sb = fullSandboxConfig({ name: 'web', namespace: 'default', uid: UID, attempt: 0 });
  sb.labels = { [LABEL_POD_NAME]: 'web', [LABEL_POD_NAMESPACE]: 'default', [LABEL_POD_UID]: UID };
  const sandboxId = await runtime.runPodSandbox(sb, '');
  const cc = minimalContainerConfig('busybox');
  cc.metadata = { name: 'app', attempt: 0 };
  cc.labels = { ...sb.labels, [LABEL_CONTAINER_NAME]: 'app' };
  const containerId = await runtime.createContainer(sandboxId, cc, sb);
  await runtime.startContainer(containerId);
  const entry = { pod: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default', uid: UID }, spec: {} }, status: { phase: 'Running' } } as unknown as PodWithStatus;
  return { runtime, status: { all: () => [entry] }, sandboxId, containerId };
}

export const silentLog = { info: (): void => undefined, error: (): void => undefined };

/** An upgrade request as kubectl (SPDY) or a WebSocket client sends it. */
export function upgradeRequest(path: string, o: { websocket?: boolean; extra?: string } = {}): string {
  const upgrade = o.websocket
    ? 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: v4.channel.k8s.io\r\n'
    : 'Connection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\nX-Stream-Protocol-Version: v3.channel.k8s.io\r\n';
  return `GET ${path} HTTP/1.1\r\nHost: node\r\nAuthorization: Bearer secret-token\r\n${upgrade}${o.extra ?? ''}\r\n`;
}
