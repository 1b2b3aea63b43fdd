// The JSON records' `ts`: float milliseconds since the epoch with a
// sub-millisecond fraction, as component-base writes it (float64 ns / 1e6).
// Date.now() has whole milliseconds only; the monotonic clock has the
// fraction but drifts from the wall clock when NTP steps it, so the two are
// re-anchored whenever they disagree by a millisecond or more.

let anchor = Date.now() - performance.now();

/** Wall-clock ms with a fraction; never more than 1 ms from Date.now(). Never blocks. */
export function preciseNowMs(): number {
  const mono = performance.now();
  const wall = Date.now();
  const t = anchor + mono;
  if (Math.abs(t - wall) < 1) return t;
  anchor = wall - mono;
  return wall;
}
