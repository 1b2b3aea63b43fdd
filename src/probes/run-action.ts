// Runs a handler of any kind (exec, httpGet, tcpSocket, grpc) once: the one
// entry point the probe workers and the lifecycle hooks share. May block for
// the target's budget; never longer once its signal aborts.
import type { RuntimeService } from '../cri/types.js';
import { versionInfo } from '../version.js';
import type { Action, ActionTarget } from './action.js';
import { runExec } from './exec.js';
import { runGrpc } from './grpc.js';
import { runHttpGet, type HttpResult } from './http.js';
import { runTcpSocket } from './tcp.js';

export interface ActionRunnerDeps {
  readonly runtime: Pick<RuntimeService, 'execSync'>;
  /** `platform-probe/1.28` or `platform-lifecycle/1.28`: what HTTP and gRPC requests call themselves. */
  readonly userAgent: string;
}

/** `platform-<what>/<major.minor>`, as the kubelet's `kube-probe/1.28`. */
export function userAgentFor(what: 'probe' | 'lifecycle'): string {
  const v = versionInfo();
  return `platform-${what}/${v.major}.${v.minor}`;
}

/** Throws when the handler could not run (see exec.ts) or names an unknown port; otherwise the verdict. */
export async function runAction(action: Action, target: ActionTarget, deps: ActionRunnerDeps): Promise<HttpResult> {
  if (action.exec) return runExec(deps.runtime, action.exec, target);
  if (action.httpGet) return runHttpGet(action.httpGet, target, deps.userAgent);
  if (action.tcpSocket) return runTcpSocket(action.tcpSocket, target);
  if (action.grpc) return runGrpc(action.grpc, target, deps.userAgent);
  throw new Error('the handler names none of exec, httpGet, tcpSocket or grpc');
}
