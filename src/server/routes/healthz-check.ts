// The platform's healthz answer, shared by the health port (src/server/healthz.ts)
// and /healthz on 10250/10255. Reads the LivenessRegistry once per call; no I/O
// besides one log line on failure.
import type { LifecycleLog } from '../../lifecycle/component.js';
import type { LivenessRegistry, LivenessResult } from '../../lifecycle/liveness.js';

/** What an answer reads of the checks: the registry itself, or a snapshot of its verdicts (the health port's worker). */
export type LivenessView = Pick<LivenessRegistry, 'names' | 'check' | 'checkOne'>;

/** The check the platform's handler reports when nothing else is installed. */
const PING = 'ping';

export interface HealthzReply {
  readonly status: 200 | 404 | 500;
  readonly body: string;
}

const OK: HealthzReply = { status: 200, body: 'ok' };

/**
 * The answer for `/healthz` (`rest` = '') or `/healthz/<name>` (`rest` = the
 * still-encoded name). `?verbose` lists the checks on success too;
 * `?exclude=<name>` (repeatable) skips checks. Failure reasons go to the log,
 * never to the body: the endpoint may be unauthenticated.
 */
export function healthzReply(liveness: LivenessView, rest: string, params: URLSearchParams, log: Pick<LifecycleLog, 'info'>): HealthzReply {
  // The supervisor's probe, many times a second under a monitoring storm: no lines built when all is well.
  if (rest === '' && params.size === 0 && liveness.check().ok) return OK;
  if (rest === '') return all(liveness, params, log);
  let name: string;
  try {
    name = decodeURIComponent(rest);
  } catch {
    return { status: 404, body: '404 page not found\n' };
  }
  const result = checkByName(liveness, name);
  if (result === undefined) return { status: 404, body: '404 page not found\n' };
  if (result.ok) return { status: 200, body: 'ok' };
  return { status: 500, body: `internal server error: ${result.reason ?? ''}\n` };
}

function all(liveness: LivenessView, params: URLSearchParams, log: Pick<LifecycleLog, 'info'>): HealthzReply {
  const excluded = new Set(params.getAll('exclude'));
  const names = liveness.names();
  const lines: string[] = [];
  const failures: string[] = [];
  for (const name of names.length === 0 ? [PING] : names) {
    if (excluded.delete(name)) {
      lines.push(`[+]${name} excluded: ok`);
      continue;
    }
    const result = checkByName(liveness, name);
    // A check unregistered between names() and now is simply gone.
    if (result === undefined) continue;
    if (result.ok) {
      lines.push(`[+]${name} ok`);
    } else {
      lines.push(`[-]${name} failed: reason withheld`);
      failures.push(`${name}: ${result.reason ?? ''}`);
    }
  }
  if (excluded.size > 0) {
    const quoted = [...excluded].sort().map((n) => JSON.stringify(n)).join(',');
    lines.push(`warn: some health checks cannot be excluded: no matches for ${quoted}`);
  }
  if (failures.length > 0) {
    log.info('healthz check failed', { failures });
    return { status: 500, body: `${lines.join('\n')}\nhealthz check failed\n` };
  }
  if (!params.has('verbose')) return { status: 200, body: 'ok' };
  return { status: 200, body: `${lines.join('\n')}\nhealthz check passed\n` };
}

function checkByName(liveness: LivenessView, name: string): LivenessResult | undefined {
  if (name === PING && liveness.names().length === 0) return { name, ok: true };
  return liveness.checkOne(name);
}
