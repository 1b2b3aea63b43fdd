// The tcpSocket handler (the kubelet's pkg/probe/tcp): a TCP connection
// opened within the budget is a success, and is closed at once; a refusal or
// the budget running out is a failure. Never throws except UnknownPortError.
import { connect } from 'node:net';
import { resolvePort, type Action, type ActionResult, type ActionTarget } from './action.js';

export async function runTcpSocket(action: NonNullable<Action['tcpSocket']>, target: ActionTarget): Promise<ActionResult> {
  const host = action.host !== undefined && action.host !== '' ? action.host : target.podIP;
  const port = resolvePort(action.port, target.ports);
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const timer = target.timeoutMs > 0 ? setTimeout(() => finish({ result: 'failure', output: `dial tcp ${host}:${port}: i/o timeout` }), target.timeoutMs) : undefined;
    const onAbort = (): void => finish({ result: 'failure', output: `dial tcp ${host}:${port}: operation was canceled` });
    target.signal.addEventListener('abort', onAbort, { once: true });
    function finish(r: ActionResult): void {
      clearTimeout(timer);
      target.signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(r);
    }
    if (target.signal.aborted) return onAbort();
    socket.once('connect', () => finish({ result: 'success', output: '' }));
    socket.once('error', (e) => finish({ result: 'failure', output: `dial tcp ${host}:${port}: ${e.message}` }));
  });
}
