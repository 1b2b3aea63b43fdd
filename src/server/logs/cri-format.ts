// The CRI container log format as the runtime writes it, one record a line:
//   <RFC3339Nano timestamp> <stdout|stderr> <P|F>[:more tags] <content>\n
// A line longer than the runtime's buffer is split into P (partial) records
// ended by an F (full) one; readers join them back. Pure: no I/O. Used by the
// container log reader (reader.ts, tail.ts), never blocks, keeps no state but
// the per-stream partial buffers of a LineAssembler.

/** A point in time with the log's nanosecond precision. */
export interface LogTime {
  /** Whole seconds since the epoch (UTC). */
  readonly sec: number;
  /** 0..999 999 999. */
  readonly nsec: number;
  /** The zone offset it was written with, in minutes east of UTC (output keeps it, as the kubelet does). */
  readonly offsetMin?: number;
}

export interface CriRecord {
  readonly time: LogTime;
  readonly stream: 'stdout' | 'stderr';
  readonly partial: boolean;
  /** Without the record's newline. */
  readonly content: Buffer;
}

/** One logical line: its partial records joined, stamped with the first one's time. */
export interface LogLine {
  readonly time: LogTime;
  readonly stream: 'stdout' | 'stderr';
  /** Ends in '\n' unless the line was still unfinished where the log ended. */
  readonly content: Buffer;
}

const TS = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/** RFC 3339 with an optional fraction of up to 9 digits; undefined when malformed. */
export function parseLogTime(s: string): LogTime | undefined {
  const m = TS.exec(s);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, se, frac, zone] = m;
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(se);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return undefined;
  let ms = Date.UTC(Number(y), month - 1, day, hour, minute, second);
  if (Number.isNaN(ms)) return undefined;
  const nsec = Number((frac ?? '').padEnd(9, '0'));
  if (zone === undefined || zone === 'Z') return { sec: Math.floor(ms / 1000), nsec };
  const offsetMin = (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  ms -= offsetMin * 60_000;
  return { sec: Math.floor(ms / 1000), nsec, offsetMin };
}

/** The kubelet's output layout 2006-01-02T15:04:05.000000000Z07:00, in the zone the line was written with. */
export function formatLogTime(t: LogTime): string {
  const off = t.offsetMin ?? 0;
  const iso = new Date((t.sec + off * 60) * 1000).toISOString(); // local wall time, as YYYY-MM-DDTHH:MM:SS.mmmZ
  const abs = Math.abs(off);
  const zone = off === 0 ? 'Z' : `${off < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${iso.slice(0, 19)}.${String(t.nsec).padStart(9, '0')}${zone}`;
}

/** Milliseconds since the epoch (fraction dropped): what since-filters compare. */
export const logTimeMs = (t: LogTime): number => t.sec * 1000 + Math.floor(t.nsec / 1_000_000);

const SPACE = 0x20;

/** Parses one record (without its newline); undefined when it is not in the CRI format. */
export function parseCriRecord(line: Buffer): CriRecord | undefined {
  const a = line.indexOf(SPACE);
  if (a <= 0) return undefined;
  const time = parseLogTime(line.toString('latin1', 0, a));
  if (!time) return undefined;
  const b = line.indexOf(SPACE, a + 1);
  if (b < 0) return undefined;
  const stream = line.toString('latin1', a + 1, b);
  if (stream !== 'stdout' && stream !== 'stderr') return undefined;
  // The content may be empty: "<ts> stdout F" with or without the trailing space.
  const c = line.indexOf(SPACE, b + 1);
  const tags = line.toString('latin1', b + 1, c < 0 ? line.length : c).split(':');
  const tag = tags[0];
  if (tag !== 'P' && tag !== 'F') return undefined;
  return { time, stream, partial: tag === 'P', content: c < 0 ? Buffer.alloc(0) : line.subarray(c + 1) };
}

/** Whether a record (without its newline) ends a logical line: an F record. Cheap: used by the backward tail scan. */
export function isFullRecord(line: Buffer): boolean {
  const r = parseCriRecord(line);
  return r !== undefined && !r.partial;
}

/**
 * Joins partial records per stream. One per reader, fed records in file order
 * (across rotated files too: a line split over a rotation still joins).
 */
export class LineAssembler {
  private readonly pending = new Map<'stdout' | 'stderr', { time: LogTime; parts: Buffer[] }>();

  push(r: CriRecord): LogLine | undefined {
    const p = this.pending.get(r.stream);
    if (r.partial) {
      if (p) p.parts.push(r.content);
      else this.pending.set(r.stream, { time: r.time, parts: [r.content] });
      return undefined;
    }
    this.pending.delete(r.stream);
    const parts = p ? [...p.parts, r.content] : [r.content];
    return { time: p ? p.time : r.time, stream: r.stream, content: Buffer.concat([...parts, NEWLINE]) };
  }

  /** The unfinished lines, oldest first, without a newline: what a reader that stops shows of them. */
  flush(): LogLine[] {
    const out = [...this.pending.entries()].map(([stream, p]) => ({ time: p.time, stream, content: Buffer.concat(p.parts) }));
    this.pending.clear();
    return out.sort((x, y) => x.time.sec - y.time.sec || x.time.nsec - y.time.nsec);
  }
}

const NEWLINE = Buffer.from('\n');

/** What the client receives for one line: the content, prefixed by the time and a space with `timestamps`. */
export function renderLine(l: LogLine, timestamps: boolean): Buffer {
  return timestamps ? Buffer.concat([Buffer.from(`${formatLogTime(l.time)} `), l.content]) : l.content;
}
