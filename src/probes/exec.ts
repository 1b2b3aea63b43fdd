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
  const own = timeoutSeconds > 0 ? AbortSignal.timeout(target.timeoutMs + EXEC_ANSWER_SLACK_MS) : undefined;
  const signal = own ? AbortSignal.any([target.signal, own]) : target.signal;
  try {
    const r = await runtime.execSync(target.containerId, action.command, timeoutSeconds, signal);
    const output = bounded(Buffer.concat([r.stdout, r.stderr]).toString('utf8'));
    if (r.exitCode === 0) return { result: 'success', output };
    return { result: 'failure', output: output !== '' ? output : `command ${JSON.stringify(action.command.join(' '))} exited with ${r.exitCode}` };
  } catch (e) {
    if (isDeadlineExceeded(e) || (own?.aborted === true && !target.signal.aborted)) {
      return { result: 'failure', output: `command ${JSON.stringify(action.command.join(' '))} timed out` };
    }
    throw e;
  }
}
