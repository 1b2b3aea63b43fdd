// The JSON watch stream's fast path: upstream writes one event per line, so
// the reader finds line ends with the native indexOf and JSON.parse-s each
// line once, instead of scanning every byte in JS to find value boundaries
// and then parsing (the splitter's way: the dominant per-event cost after
// JSON.parse itself). Lines are a fast path, not a contract: a line that is
// not exactly one object or array (a document spread over lines, two on one
// line, garbage), or a chunk without a newline that may end a document, hands
// the bytes from there to the general JsonStreamSplitter, which yields or
// rejects exactly what it would have from the start. The splitter hands the
// stream back at the end of a chunk that leaves it between documents: a
// stream of lines takes the slow path only for the stretch that needed it
// (one TLS record cut right after a `}` would otherwise send every later
// event through the byte scan). One per stream; push never blocks; pure apart
// from its buffer.
import { CodecError, JsonStreamSplitter } from '../../api/codec/index.js';

const NL = 0x0a;
const EMPTY = Buffer.alloc(0);

/** A line that is one JSON object or array, parsed; undefined when the line is not (the splitter then decides). */
function parseLine(line: string): unknown {
  // Only `{`/`[` openings are documents; anything else the splitter rejects with its own message.
  let i = 0;
  while (i < line.length && (line.charCodeAt(i) === 0x20 || line.charCodeAt(i) === 0x09 || line.charCodeAt(i) === 0x0d)) i++;
  const c = line.charCodeAt(i);
  if (c !== 0x7b && c !== 0x5b) return undefined;
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}

const isBlank = (b: Buffer, from: number, to: number): boolean => {
  for (let i = from; i < to; i++) {
    const c = b[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== NL) return false;
  }
  return true;
};

/** The splitter counts offsets from where it took over; messages name the offset in the whole stream. */
function shifted(e: unknown, base: number): unknown {
  if (!(e instanceof CodecError) || e.offset === undefined || base === 0) return e;
  const offset = e.offset + base;
  return new CodecError(e.code, e.message.replace(`at offset ${e.offset}`, `at offset ${offset}`), { offset, ...(e.field === undefined ? {} : { field: e.field }) });
}

/** The chunk's last non-blank byte closes an object or array. */
function endsValue(b: Buffer): boolean {
  for (let i = b.length - 1; i >= 0; i--) {
    const c = b[i];
    if (c === 0x20 || c === 0x09 || c === 0x0d) continue;
    return c === 0x7d || c === 0x5d;
  }
  return false;
}

export interface JsonDocuments {
  /** Each JSON value completed by `chunk`, parsed (the splitter's documents go through `parse`). Throws the splitter's CodecError. */
  push(chunk: Buffer): unknown[];
  /** The stream ended: the documents its last, unterminated line holds (a last event needs no newline). */
  finish(): unknown[];
  readonly pending: boolean;
}

/**
 * `parse` turns a document the splitter found into a value (the caller's
 * JSON.parse with its own error); it is used only off the fast path.
 */
export function jsonDocuments(maxDocumentBytes: number, parse: (doc: Buffer) => unknown): JsonDocuments {
  let splitter: JsonStreamSplitter | undefined;
  /** Bytes handed to the current splitter. */
  let splitterBytes = 0;
  let tail: Buffer[] = [];
  let tailBytes = 0;
  /** Bytes of the stream before `tail` (before the splitter, while it has the stream). */
  let consumed = 0;
  /** The splitter's documents in `b`, parsed into `out`; the stream goes back to lines when `b` leaves it between documents. */
  const split = (s: JsonStreamSplitter, b: Buffer, out: unknown[]): void => {
    let docs: Buffer[];
    try {
      docs = s.push(b);
    } catch (e) {
      throw shifted(e, consumed);
    }
    splitterBytes += b.length;
    for (const d of docs) out.push(parse(d));
    if (!s.pending) {
      splitter = undefined;
      consumed += splitterBytes;
      splitterBytes = 0;
    }
  };
  /** The splitter takes the stream from the start of `rest` (the bytes not yet consumed); returns `rest` for it. */
  const fallBack = (rest: Buffer): Buffer => {
    splitter = new JsonStreamSplitter({ maxDocumentBytes });
    splitterBytes = 0;
    tail = [];
    tailBytes = 0;
    return rest;
  };
  /**
   * The splitter's step: up to and including the first newline of `b` (a
   * newline is where a stream of lines may be between documents again);
   * returns what is left of `b`.
   */
  const splitStep = (s: JsonStreamSplitter, b: Buffer, out: unknown[]): Buffer => {
    const nl = b.indexOf(NL);
    const end = nl < 0 ? b.length : nl + 1;
    split(s, end === b.length ? b : b.subarray(0, end), out);
    return b.subarray(end);
  };
  /** The lines' step: every complete line of `chunk`; returns the bytes the splitter must take from here, or an empty buffer. */
  const linesStep = (chunk: Buffer, out: unknown[]): Buffer => {
    let nl = chunk.indexOf(NL);
    if (nl < 0) {
      // Copy: the caller may reuse its chunk buffer.
      tail.push(Buffer.from(chunk));
      tailBytes += chunk.length;
      // A chunk that may end a value without a newline (a server that does not write lines, or an
      // event bigger than a chunk), or a line longer than any event: the splitter takes over, so such
      // a server's events are not held back waiting for a newline.
      if (tailBytes > maxDocumentBytes || endsValue(chunk)) return fallBack(Buffer.concat(tail, tailBytes));
      return EMPTY;
    }
    let buf = chunk;
    let start = 0;
    if (tail.length > 0) {
      tail.push(chunk);
      buf = Buffer.concat(tail, tailBytes + chunk.length);
      nl += tailBytes;
      tail = [];
      tailBytes = 0;
    }
    while (nl >= 0) {
      if (!isBlank(buf, start, nl)) {
        const v = parseLine(buf.toString('utf8', start, nl));
        if (v === undefined || typeof v !== 'object' || v === null) return fallBack(buf.subarray(start));
        out.push(v);
      }
      consumed += nl + 1 - start;
      start = nl + 1;
      nl = buf.indexOf(NL, start);
    }
    if (start < buf.length) {
      // Copy: the rest is small, and a view would pin the whole chunk until the next line ends.
      const rest = Buffer.from(buf.subarray(start));
      tail.push(rest);
      tailBytes = rest.length;
    }
    return EMPTY;
  };
  const run = (b: Buffer, out: unknown[]): unknown[] => {
    let rest = b;
    while (rest.length > 0) rest = splitter !== undefined ? splitStep(splitter, rest, out) : linesStep(rest, out);
    return out;
  };
  return {
    push: (chunk) => run(chunk, []),
    finish() {
      if (splitter !== undefined || tail.length === 0) return [];
      const rest = Buffer.concat(tail, tailBytes);
      return isBlank(rest, 0, rest.length) ? [] : run(fallBack(rest), []);
    },
    get pending() {
      if (splitter !== undefined) return splitter.pending;
      for (const b of tail) if (!isBlank(b, 0, b.length)) return true;
      return false;
    },
  };
}
