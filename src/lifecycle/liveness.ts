// Named liveness checks that managers register and /healthz reads. A check is
// a cheap synchronous probe of state the manager already keeps (e.g. "the sync
// loop ran within the last N seconds"), never I/O: it runs on every request.

import { AgentError } from '../errors.js';

/** Returns true when healthy, otherwise the reason (shown in logs, not to HTTP clients). */
export type LivenessCheck = () => true | string;

export interface LivenessResult {
  readonly name: string;
  readonly ok: boolean;
  /** Present when `ok` is false. */
  readonly reason?: string;
}

export interface LivenessReport {
  readonly ok: boolean;
  /** `"<name>: <reason>"` per failing check, in registration order. */
  readonly failures: string[];
  /** Every check, in registration order. */
  readonly results: LivenessResult[];
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export class LivenessRegistry {
  readonly #checks = new Map<string, LivenessCheck>();

  /**
   * Adds a check; returns its unregister function (idempotent). Names are
   * unique and URL-safe because /healthz/<name> serves each one.
   */
  register(name: string, check: LivenessCheck): () => void {
    if (!NAME.test(name)) {
      throw new AgentError('EINTERNAL', `liveness check name ${JSON.stringify(name)} is not a valid name`);
    }
    if (this.#checks.has(name)) {
      throw new AgentError('EINTERNAL', `liveness check "${name}" is already registered`);
    }
    this.#checks.set(name, check);
    return () => {
      if (this.#checks.get(name) === check) this.#checks.delete(name);
    };
  }

  names(): string[] {
    return [...this.#checks.keys()];
  }

  /** Runs one check; undefined when no check has that name. */
  checkOne(name: string): LivenessResult | undefined {
    const check = this.#checks.get(name);
    return check === undefined ? undefined : evaluate(name, check);
  }

  /** Runs every check. A check that throws counts as failing with the error's message. */
  check(): LivenessReport {
    const results = [...this.#checks].map(([name, check]) => evaluate(name, check));
    const failures = results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.reason ?? ''}`);
    return { ok: failures.length === 0, failures, results };
  }
}

function evaluate(name: string, check: LivenessCheck): LivenessResult {
  let outcome: true | string;
  try {
    outcome = check();
  } catch (err) {
    outcome = err instanceof Error ? err.message : String(err);
  }
  return outcome === true ? { name, ok: true } : { name, ok: false, reason: outcome };
}
