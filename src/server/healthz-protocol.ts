// The messages between the agent's thread and the health port's worker
// (healthz-worker.ts), and the checks' verdicts as the worker keeps them.
// Pure.
import type { AddressInfo } from 'node:net';
import type { LivenessReport, LivenessResult } from '../lifecycle/liveness.js';
import type { LivenessView } from './routes/healthz-check.js';

export interface HealthzWorkerData {
  readonly address: string;
  readonly port: number;
  /** How old the verdicts may be before a request waits for fresh ones (0: every request asks). */
  readonly maxVerdictAgeMs: number;
}

/** To the worker. */
export type ToHealthzWorker = { readonly kind: 'verdicts'; readonly results: readonly LivenessResult[] } | { readonly kind: 'close' };

/** From the worker. */
export type FromHealthzWorker =
  | { readonly kind: 'listening'; readonly address: AddressInfo }
  | { readonly kind: 'listen-failed'; readonly message: string }
  | { readonly kind: 'refresh' }
  | { readonly kind: 'log'; readonly msg: string; readonly fields: Record<string, unknown> }
  | { readonly kind: 'closed' };

/** The checks as one evaluation left them: what the worker answers from. */
export function verdictView(results: readonly LivenessResult[]): LivenessView {
  const byName = new Map(results.map((r) => [r.name, r]));
  const failures = results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.reason ?? ''}`);
  const report: LivenessReport = { ok: failures.length === 0, failures, results: [...results] };
  return {
    names: () => results.map((r) => r.name),
    check: () => report,
    checkOne: (name) => byName.get(name),
  };
}
