// Reads a client watch to its end: the events it gave and how it ended
// (undefined for a clean end, else what the iteration threw). Shared by the
// rest layer's unit and integration tests.
import type { WatchEvent, WatchStream } from '../../src/client/types.js';

export async function drain(w: WatchStream): Promise<{ events: WatchEvent[]; error: unknown }> {
  const events: WatchEvent[] = [];
  try {
    for await (const e of w) events.push(e);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}
