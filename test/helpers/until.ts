// Waiting on events, not timers: a harness keeps a set of pending checks and
// runs them after every event it sees (a loop event, a status change, an
// informer event); `untilChecked` adds one check and resolves with the
// condition's first truthy value. Its one timer is the deadline.

/** Resolves with fn()'s first truthy value, checked now and whenever the harness runs `checks`; rejects after `ms` (with `detail()` in the message). */
export function untilChecked<T>(checks: Set<() => void>, fn: () => T | undefined | false, what: string, ms: number, detail?: () => string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const finish = (): void => {
      clearTimeout(timer);
      checks.delete(check);
    };
    const check = (): void => {
      try {
        const v = fn();
        if (!v) return;
        finish();
        resolve(v);
      } catch (e) {
        finish();
        reject(e as Error);
      }
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`timed out waiting for ${what}${detail ? `; ${detail()}` : ''}`));
    }, ms);
    checks.add(check);
    check();
  });
}
