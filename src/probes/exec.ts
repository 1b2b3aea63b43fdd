// The exec handler (the kubelet's pkg/probe/exec over CRI ExecSync): the
// command runs in the container, bounded by the budget in the runtime; exit 0
// is a success, any other exit a failure, and running out of time a failure
// too (the kubelet's ExecProbeTimeout, on since 1.20). A runtime that cannot
// run the command at all (the container is not running, the runtime is
// down) makes this throw: a prober error, not a verdict.
import { isDeadlineExceeded } from '../cri/errors.js';
import type { RuntimeService } from '../cri/types.js';
import { bounded, type Action, type ActionResult, type ActionTarget } from './action.js';

/**
 * Beyond the budget the runtime enforces, how long the agent waits for the
 * runtime's answer before it counts the command as timed out itself (a
 * runtime that does not enforce it, or the in-memory one of the tests).
 */
export const EXEC_ANSWER_SLACK_MS = 2_000;

export async function runExec(runtime: Pick<RuntimeService, 'execSync'>, action: NonNullable<Action['exec']>, target: ActionTarget): Promise<ActionResult> {
  const timeoutSeconds = target.timeoutMs > 0 ? Math.max(1, Math.ceil(target.timeoutMs / 1000)) : 0;
  const timedOut = (): ActionResult => ({ result: 'failure', output: `command ${JSON.stringify(action.command.join(' '))} timed out` });
  // The agent's own bound is a plain timer raced with the call (the call itself ends
  // at its gRPC deadline): an AbortSignal.any and a timeout signal per probe cost
  // more than the probe's own bookkeeping (bench/probes.mjs).
  let timer: NodeJS.Timeout | undefined;
  const late = timeoutSeconds > 0 ? new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), target.timeoutMs + EXEC_ANSWER_SLACK_MS))) : undefined;
  try {
    const call = runtime.execSync(target.containerId, action.command, timeoutSeconds, target.signal);
    const r = late ? await Promise.race([call, late]) : await call;
    if (r === 'late') {
      call.catch(() => undefined);
      return timedOut();
    }
    const output = bounded(Buffer.concat([r.stdout, r.stderr]).toString('utf8'));
    if (r.exitCode === 0) return { result: 'success', output };
    return { result: 'failure', output: output !== '' ? output : `command ${JSON.stringify(action.command.join(' '))} exited with ${r.exitCode}` };
  } catch (e) {
    if (isDeadlineExceeded(e)) return timedOut();
    throw e;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
