// Value conversions of the API's special types between their JSON form and
// their message fields (pure functions, no I/O): metav1.Time (RFC 3339,
// seconds), metav1.MicroTime (RFC 3339 with six fractional digits).
// Called by the compiled encoders/decoders (convert.ts) and by the strict
// validator; none of them throws for valid input.

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

function digits(s: string, from: number, n: number): number {
  let v = 0;
  for (let i = from; i < from + n; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/** `YYYY-MM-DDTHH:MM:SS` + `Z` or `.ffffffZ`: what this server and Go write, read without the regular expression. */
function parseCanonical(s: string): { seconds: number; nanos: number } | undefined {
  const n = s.length;
  if ((n !== 20 && n !== 27) || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(10) !== 84 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58 || s.charCodeAt(n - 1) !== 90) return undefined;
  const y = digits(s, 0, 4);
  const mo = digits(s, 5, 2);
  const d = digits(s, 8, 2);
  const h = digits(s, 11, 2);
  const mi = digits(s, 14, 2);
  const se = digits(s, 17, 2);
  const micros = n === 27 && s.charCodeAt(19) === 46 ? digits(s, 20, 6) : n === 20 ? 0 : -1;
  if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 60 || micros < 0) return undefined;
  return { seconds: daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se, nanos: micros * 1000 };
}

/** Seconds and nanoseconds since the epoch of an RFC 3339 time, or undefined when `s` is not one. */
export function parseRfc3339(s: string): { seconds: number; nanos: number } | undefined {
  const fast = parseCanonical(s);
  if (fast !== undefined) return fast;
  const m = RFC3339.exec(s);
  if (m === null) return undefined;
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(Number(m[1]), month) || Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 60) return undefined;
  let seconds = daysFromCivil(Number(m[1]), month, day) * 86400 + Number(m[4]) * 3600 + Number(m[5]) * 60 + Number(m[6]);
  if (m[8] === undefined) {
    const off = (Number(m[10]) * 60 + Number(m[11])) * 60;
    seconds += m[9] === '-' ? off : -off;
  }
  const frac = m[7];
  const nanos = frac === undefined ? 0 : Number(frac.padEnd(9, '0'));
  return { seconds, nanos };
}

const TWO = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));

/**
 * `YYYY-MM-DDTHH:MM:SS` of a Unix time in UTC, by arithmetic (days to civil
 * date, proleptic Gregorian): decoding a list formats thousands of times and
 * Date#toISOString dominated it. Years outside 0000-9999 go through Date.
 */
function daysInMonth(y: number, m: number): number {
  if (m === 2) return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (Date.UTC would read years 0-99 as 1900-1999). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function isoSeconds(seconds: number): string {
  const days = Math.floor(seconds / 86400);
  let rem = seconds - days * 86400;
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  if (y < 0 || y > 9999 || !Number.isFinite(seconds)) {
    const date = new Date(seconds * 1000);
    return Number.isNaN(date.getTime()) ? '0001-01-01T00:00:00' : date.toISOString().slice(0, 19);
  }
  const hh = Math.floor(rem / 3600);
  rem -= hh * 3600;
  const mm = Math.floor(rem / 60);
  const ss = rem - mm * 60;
  return `${TWO[Math.floor(y / 100)] as string}${TWO[y % 100] as string}-${TWO[m] as string}-${TWO[d] as string}T${TWO[hh] as string}:${TWO[mm] as string}:${TWO[ss] as string}`;
}

/** `2006-01-02T15:04:05Z`: metav1.Time's JSON form (second precision, UTC). */
export function formatTime(seconds: number): string {
  return `${isoSeconds(seconds)}Z`;
}

/** `2006-01-02T15:04:05.000000Z`: metav1.MicroTime's JSON form. */
export function formatMicroTime(seconds: number, nanos: number): string {
  const micros = Math.floor(nanos / 1000);
  return `${isoSeconds(seconds)}.${String(micros).padStart(6, '0')}Z`;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Go's encoding/json reads []byte as standard, padded base64; anything else is a type error. */
export function isBase64(s: string): boolean {
  return BASE64.test(s);
}
