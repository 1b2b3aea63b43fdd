// Collects node's process warnings during a test, to fail on the one a
// listener leak on a long-lived AbortSignal produces: "MaxListenersExceededWarning:
// Possible EventTarget memory leak detected. 11 abort listeners added to
// [AbortSignal]". Node emits it on a later tick than the addEventListener that
// crossed the limit, so read it after `settle()`.

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
  process.on('warning', onWarning);
  return {
    async settle() {
      for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
    },
    abortListenerWarnings: () => seen.filter((w) => w.name === 'MaxListenersExceededWarning' && /abort listeners/.test(w.message)).map((w) => w.message),
    stop: () => void process.off('warning', onWarning),
  };
}
