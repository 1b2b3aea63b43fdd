// `agent --print-plan`: reads the pod sources and the runtime once and prints
// what the sync loop would do now, changing nothing (see plan.ts). Logs (a
// bad manifest, an unreachable URL) go to stderr; the plan alone to stdout.
import type { ResolvedConfig } from '../config/resolve.js';
import { createLogging } from '../log/index.js';
import { collectPlanInput } from './collect.js';
import { planNode, renderPlan } from './plan.js';

export { planDeclared, planNode, planOrphan, renderPlan, type DeclaredPod, type PlanInput, type PodPlan, type PodVerdict } from './plan.js';

export interface PlanIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}

/** Prints the plan; resolves with the exit code: 0 when printed, 1 when the runtime or the sources could not be read. */
export async function printPlan(r: ResolvedConfig, io: PlanIo, signal: AbortSignal = new AbortController().signal): Promise<number> {
  const { config: cfg } = r;
  const logging = createLogging({
    format: cfg.logging.format,
    verbosity: cfg.logging.verbosity,
    vmodule: cfg.logging.vmodule,
    flushFrequencyMs: 0,
    json: { splitStream: false, infoBufferSize: 0 },
    // Everything the log says goes to stderr: stdout is the plan's.
    stdout: io.stderr,
    stderr: io.stderr,
  });
  const log = logging.root.child({ component: 'print-plan' });
  try {
    const { input, notes } = await collectPlanInput(r, log, signal);
    io.stdout.write(renderPlan(planNode(input), notes));
    return 0;
  } catch (e) {
    log.error('Could not compute the plan', { err: e });
    return 1;
  } finally {
    await logging.close();
  }
}
