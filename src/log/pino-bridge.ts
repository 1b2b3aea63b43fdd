// The pino side: JSON serialisation in component-base's shape, and a
// destination that routes pino's lines through the agent's Sink. pino takes
// ~20 ms to import, so it is loaded on first use only: the default text
// format never needs it unless someone reaches for `AgentLogger.pino`.
// No transports: they run in worker threads, cost startup time and drop lines
// at exit.

import { createRequire } from 'node:module';
import type { Logger as PinoLogger } from 'pino';
import { errorDetails, errorText } from './error-render.js';
import type { Sink } from './sink.js';
import { formatTextLine, type Severity } from './text.js';

type PinoFactory = typeof import('pino');

let pinoFactory: PinoFactory | undefined;

function loadPino(): PinoFactory {
  pinoFactory ??= createRequire(import.meta.url)('pino') as PinoFactory;
  return pinoFactory;
}

/** Whether this module instance has loaded pino yet; lets a test hold the lazy-load promise. */
export function isPinoLoaded(): boolean {
  return pinoFactory !== undefined;
}

/** pino's `symbols.needsMetadataGsym`, without loading pino to read it. */
const NEEDS_METADATA = Symbol.for('pino.metadata');

export interface BridgeDeps {
  format: 'text' | 'json';
  pid: number;
  nowMs: () => number;
  sink: Sink;
}

export function severityOfPinoLevel(level: number): Severity {
  if (level >= 60) return 'F';
  if (level >= 50) return 'E';
  if (level >= 40) return 'W';
  return 'I';
}

/** The `severity` value of a JSON record by its text severity letter; info has none. */
export const JSON_SEVERITY: Readonly<Record<Exclude<Severity, 'I'>, string>> = { W: 'WARNING', E: 'ERROR', F: 'FATAL' };

/**
 * The level part of a JSON record: nothing for info (component-base's records
 * carry none; `v` says the verbosity), `{"severity":"WARNING"|"ERROR"|"FATAL"}`
 * otherwise. component-base marks errors only by a missing `v` and writes
 * klog's warnings exactly like info, so a log shipper could not tell them
 * apart. The values are klog's severity names (Google Cloud Logging, for
 * one, reads this key and these values). JSON format only.
 */
export function jsonSeverity(level: number): { severity?: string } {
  const sev = severityOfPinoLevel(level);
  return sev === 'I' ? {} : { severity: JSON_SEVERITY[sev] };
}

/**
 * Replaces an Error in `err` by its message (component-base's `err` string)
 * followed by an `errDetails` object; key order is otherwise kept.
 */
export function expandErr(obj: Record<string, unknown>): Record<string, unknown> {
  const err = obj['err'];
  if (err === undefined || typeof err === 'string') return obj;
  const out: Record<string, unknown> = {};
  for (const key in obj) {
    if (key !== 'err') {
      out[key] = obj[key];
      continue;
    }
    out['err'] = errorText(err);
    if (err instanceof Error) out['errDetails'] = errorDetails(err);
  }
  return out;
}

/**
 * The `caller` of the record being written: set by the AgentLogger right
 * before its (synchronous) pino call and read by the timestamp hook of that
 * same call, so it lands right after `ts` as in component-base. Records
 * written through `AgentLogger.pino` directly carry none.
 */
let pendingCaller: string | undefined;

/** Writes `write()`'s record with `caller`; the caller is cleared whatever happens. */
export function withCaller(caller: string | undefined, write: () => void): void {
  pendingCaller = caller;
  try {
    write();
  } finally {
    pendingCaller = undefined;
  }
}

function tsAndCaller(nowMs: () => number): string {
  const caller = pendingCaller;
  pendingCaller = undefined;
  return caller === undefined ? `,"ts":${nowMs()}` : `,"ts":${nowMs()},"caller":${JSON.stringify(caller)}`;
}

interface BindingsSource {
  bindings(): Record<string, unknown>;
}

/**
 * pino fills the `last*` properties before each `write` because of the
 * metadata symbol; that gives the level for routing and, in text format, the
 * raw record to render instead of pino's JSON.
 */
class PinoDestination {
  readonly [NEEDS_METADATA] = true;
  lastLevel = 30;
  lastMsg: unknown;
  lastObj: unknown;
  lastLogger: BindingsSource | undefined;

  constructor(private readonly deps: BridgeDeps) {}

  write(line: string): void {
    const sev = severityOfPinoLevel(this.lastLevel);
    if (this.deps.format === 'json') {
      this.deps.sink.write(sev, line);
      return;
    }
    this.deps.sink.write(sev, this.asText(sev));
  }

  flush(cb?: (err?: Error) => void): void {
    this.deps.sink.flush();
    cb?.();
  }

  private asText(sev: Severity): string {
    const { component, ...bindings } = this.lastLogger?.bindings() ?? {};
    const fields: Record<string, unknown> = { ...(this.lastObj as Record<string, unknown> | undefined) };
    let msg = this.lastMsg;
    if (msg === undefined) msg = fields['msg'];
    delete fields['msg'];
    return formatTextLine({
      sev,
      ms: this.deps.nowMs(),
      pid: this.deps.pid,
      source: typeof component === 'string' ? component : 'agent',
      msg: msg === undefined ? '' : String(msg),
      bindings,
      fields,
    });
  }
}

/** The root pino logger; every AgentLogger's `.pino` is a child of it. */
export function createBasePino(deps: BridgeDeps): PinoLogger {
  const pino = loadPino();
  return pino(
    {
      level: 'info',
      base: null,
      messageKey: 'msg',
      errorKey: 'err',
      // component-base writes `ts` as float milliseconds since the epoch, then `caller`.
      timestamp: () => tsAndCaller(deps.nowMs),
      formatters: {
        // component-base has no level key; pino still emits the opening brace
        // from this object, which leaves `{,` for streamWrite to repair.
        level: () => ({}),
        log: expandErr,
      },
      // JSON warnings and errors get `severity` (after `ts` and the bindings, before `msg`).
      ...(deps.format === 'json' ? { mixin: (_obj: object, level: number) => jsonSeverity(level) } : {}),
      hooks: { streamWrite: (s) => (s.startsWith('{,') ? `{${s.slice(2)}` : s) },
    },
    new PinoDestination(deps),
  );
}
