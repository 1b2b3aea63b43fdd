// "Logged once per problem": the first failure of each kind is a warning,
// repeats are V(4), and a success after failures is logged once as recovery.
import type { ClientLog } from '../client/types.js';

export interface ProblemLog {
  problem(err: unknown, fields?: Record<string, unknown>): void;
  recovered(fields?: Record<string, unknown>): void;
}

export function problemLog(log: ClientLog, what: string): ProblemLog {
  let last: string | undefined;
  return {
    problem(err, fields) {
      const text = err instanceof Error ? err.message : String(err);
      if (text === last) {
        log.v?.(4)?.info(what, { err: text, ...fields });
        return;
      }
      last = text;
      log.warn(what, { err: text, ...fields });
    },
    recovered(fields) {
      if (last === undefined) return;
      last = undefined;
      log.info(`${what}: recovered`, fields);
    },
  };
}
