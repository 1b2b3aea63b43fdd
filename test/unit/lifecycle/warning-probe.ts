// Collects node's process warnings during a test, to fail on the one a
// listener leak on a long-lived AbortSignal produces: "MaxListenersExceededWarning:
// Possible EventTarget memory leak detected. 11 abort listeners added to
// [AbortSignal]". Node emits it on a later tick than the addEventListener that
// crossed the limit, so read it after `settle()`. While the probe runs, the
// warnings are its to report: node's own printer (a 'warning' listener) is set
// aside, so a test that provokes one on purpose prints nothing to the CI log.

export interface WarningProbe {
  /** Lets node deliver warnings it has queued (they are emitted on a later tick). */
  settle(): Promise<void>;
  /** The messages of the abort-listener leak warnings seen so far. */
  abortListenerWarnings(): string[];
  /** Stops collecting; idempotent. */
  stop(): void;
}

export function startWarningProbe(): WarningProbe {
  const seen: Error[] = [];
  const onWarning = (w: Error): void => void seen.push(w);
  const printers = process.listeners('warning');
  for (const l of printers) process.off('warning', l);
  process.on('warning', onWarning);
  let stopped = false;
  return {
    async settle() {
      for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
    },
    abortListenerWarnings: () => seen.filter((w) => w.name === 'MaxListenersExceededWarning' && /abort listeners/.test(w.message)).map((w) => w.message),
    stop: () => {
      if (stopped) return;
      stopped = true;
      process.off('warning', onWarning);
      for (const l of printers) process.on('warning', l);
    },
  };
}
