// A coalescing trigger: one run at a time, and a kick during a run causes
// exactly one more run after it (however many kicks came), so a burst of
// events costs at most two runs and no event is missed: the run after the
// last kick began after it. Optionally periodic: a run also starts `periodMs`
// after the previous one ended, unless a kick started one sooner.
//
// Used by the file source (a scan per watch event or tick), the PLEG (a relist
// per period or kick), and meant for the pod workers (a sync per change).

import { onAbort } from '../lifecycle/abort.js';

export interface CoalescerOptions {
  /** Stops the trigger: no run starts once it aborts (the run under way finishes; idle() awaits it). */
  readonly signal: AbortSignal;
  /** A run also starts this long after the previous one ended, unless kicked sooner; absent: only kicks start runs. */
  readonly periodMs?: number;
}

export interface Coalescer {
  /**
   * Asks for a run: starts one now when none is under way, else marks one more
   * to follow the current run. Never blocks. The promise settles when the runs
   * under way end, the one covering this kick included; it rejects with a
   * run's error (that run ends the series, and the one more it owed is not
   * made: the kicker learns the run failed). A caller that does not await it
   * must catch it. After the signal aborted it resolves at once, running nothing.
   */
  kick(): Promise<void>;
  /** Resolves when no run is under way (at once if none is); never rejects. For shutdown: abort, then await idle(). */
  idle(): Promise<void>;
  /** Whether a run is under way. */
  readonly running: boolean;
}

/**
 * `run` is called with the trigger's signal, never twice at once. It may
 * block; a throw ends the current series of runs (see kick()). Nothing runs
 * until the first kick().
 */
export function createCoalescer(run: (signal: AbortSignal) => Promise<void>, opts: CoalescerOptions): Coalescer {
  const { signal, periodMs } = opts;
  let series: Promise<void> | undefined;
  let again = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let detach = (): void => {};

  const disarm = (): void => {
    clearTimeout(timer);
    timer = undefined;
    detach();
    detach = () => {};
  };

  // The next periodic run: armed when a series ends, disarmed by a kick or the abort.
  const arm = (): void => {
    if (periodMs === undefined || signal.aborted) return;
    disarm();
    timer = setTimeout(() => {
      disarm();
      // A failing periodic run is the run's to report; the period goes on.
      kick().catch(() => undefined);
    }, periodMs);
    detach = onAbort(signal, disarm);
  };

  function kick(): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    if (series !== undefined) {
      again = true;
      return series;
    }
    disarm();
    const current = (async () => {
      do {
        again = false;
        await run(signal);
      } while (again && !signal.aborted);
    })();
    series = current.finally(() => {
      series = undefined;
    });
    // The period goes on after a failed run too: a periodic trigger never stops on its own.
    current.then(arm, arm);
    return series;
  }

  return {
    kick,
    idle: () => (series === undefined ? Promise.resolve() : series.then(() => undefined, () => undefined)),
    get running() {
      return series !== undefined;
    },
  };
}
