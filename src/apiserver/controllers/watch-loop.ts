// The informer of the server's own controllers, reduced to what they need:
// one registry watch that starts with the current state (synthetic ADDED
// events, "Get State and Start at Most Recent"), resumes from the last
// resourceVersion when a watch ends, and starts over with a fresh state when
// the history is gone (410). Each event's object goes to `onEvent`, which must
// not block (it queues work). Runs until `signal` aborts; restarts after a
// failure are delayed (0.1 s doubling to 10 s) on a timer cleared at abort.
import { isGone } from '../../api/errors.js';
import { abortableSleep, isAbortError } from '../../lifecycle/abort.js';
import type { ApiObject, WatchEvent, WatchRequest } from '../registry/types.js';

/** The part of the registry's GenericStore a controller watches. */
export interface WatchSource {
  watch(namespace: string, req: WatchRequest): Promise<AsyncIterable<WatchEvent>>;
}

export interface WatchLoopLog {
  warn(msg: string, fields?: Record<string, unknown>): void;
}

export const RESTART_DELAY_MS = { initial: 100, max: 10_000 } as const;

/** The delay before the `failures`-th consecutive restart. Pure. */
export const restartDelayMs = (failures: number): number => Math.min(RESTART_DELAY_MS.initial * 2 ** Math.max(0, failures - 1), RESTART_DELAY_MS.max);

export async function runWatchLoop(source: WatchSource, onEvent: (type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: ApiObject) => void, log: WatchLoopLog, signal: AbortSignal): Promise<void> {
  let lastRv: number | undefined;
  let failures = 0;
  while (!signal.aborted) {
    let delivered = 0;
    try {
      const start: WatchRequest['start'] = lastRv === undefined ? { kind: 'StartMostRecent' } : { kind: 'StartExact', rv: lastRv };
      for await (const ev of await source.watch('', { start, allowWatchBookmarks: true, signal })) {
        if (ev.type === 'ERROR') {
          if (ev.object.code === 410) lastRv = undefined;
          else log.warn('watch error event', { message: ev.object.message, code: ev.object.code });
          break;
        }
        delivered++;
        failures = 0;
        const rv = Number(ev.object.metadata.resourceVersion);
        if (Number.isSafeInteger(rv) && rv > 0) lastRv = rv;
        if (ev.type !== 'BOOKMARK') onEvent(ev.type, ev.object);
      }
    } catch (e) {
      if (signal.aborted || isAbortError(e, signal)) return;
      if (isGone(e)) lastRv = undefined;
      else log.warn('watch failed; restarting', { err: e });
    }
    if (signal.aborted) return;
    // A watch that ended without delivering anything (or failed) waits before the next: no tight loop.
    if (delivered === 0) {
      failures++;
      try {
        await abortableSleep(restartDelayMs(failures), signal);
      } catch {
        return;
      }
    }
  }
}
