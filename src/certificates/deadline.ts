// When to renew a certificate and how long to wait after a failed attempt:
// the certificate manager's schedule (client-go util/certificate). Pure.
import type { Lifetime } from './layout.js';

/**
 * The moment to start renewing: notBefore + (70 % + 20 % × random) of the
 * lifetime — a jittered point between 70 % and 90 %, so the nodes of a
 * cluster whose certificates were issued together do not all ask at once.
 * `random` in [0, 1).
 */
export function rotationDeadline(l: Lifetime, random: number): Date {
  const total = l.notAfter.getTime() - l.notBefore.getTime();
  return new Date(l.notBefore.getTime() + Math.floor(total * (0.7 + 0.2 * random)));
}

/** The manager's back-off: 2 s doubling for 5 steps (10 % jitter), then every 32 s for ever. */
export const RENEW_BACKOFF = { initialMs: 2_000, factor: 2, steps: 5, jitter: 0.1, pollMs: 32_000 } as const;

/** The wait after failed attempt number `failures` (1 = the first failure). `random` in [0, 1). */
export function renewRetryDelayMs(failures: number, random: number): number {
  if (failures > RENEW_BACKOFF.steps - 1) return RENEW_BACKOFF.pollMs;
  const base = RENEW_BACKOFF.initialMs * RENEW_BACKOFF.factor ** Math.max(0, failures - 1);
  return Math.floor(base * (1 + RENEW_BACKOFF.jitter * random));
}

/** How long a node waits for its request to be signed: the bootstrap's hour, a renewal's 15 minutes. */
export const BOOTSTRAP_WAIT_MS = 3_600_000;
export const RENEW_WAIT_MS = 900_000;
