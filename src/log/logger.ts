// AgentLogger: V-level gating, bindings and component, then one of two
// renderers: text lines built here directly (the default format, kept off
// pino's JSON path), or pino for JSON.

import type { Logger as PinoLogger } from 'pino';
import { callerOf } from './caller.js';
import { withCaller } from './pino-bridge.js';
import type { Sink } from './sink.js';
import { formatTextLine, type Severity } from './text.js';
import type { AgentLogger, ChildBindings, LogFields, VerboseLogger } from './types.js';

/** State shared by a Logging instance and all of its loggers. */
export interface Core {
  readonly format: 'text' | 'json';
  readonly pid: number;
  readonly nowMs: () => number;
  readonly sink: Sink;
  verbosityFor(component: string): number;
  basePino(): PinoLogger;
}

/** V-levels whose VerboseLogger is cached per logger; higher ones are rare and built per call. */
const CACHED_LEVELS = 16;

/**
 * component-base key order: `msg`, then `v` (absent on errors, as zapr's
 * Error adds none), then `err`, then the call's fields. The keys the format
 * owns are not overwritten by fields of the same name; `severity` (added by
 * pino-bridge.ts to warnings and errors) is owned too, so a field of that
 * name never makes an info record read as an error.
 */
function jsonRecord(sev: Severity, level: number, msg: string, fields: LogFields | undefined): Record<string, unknown> {
  const obj: Record<string, unknown> = { msg };
  if (sev !== 'E') obj['v'] = level;
  if (fields === undefined) return obj;
  if (fields['err'] !== undefined) obj['err'] = fields['err'];
  for (const key in fields) {
    if (!Object.hasOwn(obj, key) && key !== 'err' && key !== 'severity') obj[key] = fields[key];
  }
  return obj;
}

export class Logger implements AgentLogger {
  readonly verbosity: number;
  private pinoChild: PinoLogger | undefined;
  private readonly verbose: Array<VerboseLogger | undefined> = [];

  constructor(
    private readonly core: Core,
    readonly component: string,
    private readonly bindings: LogFields,
  ) {
    this.verbosity = core.verbosityFor(component);
  }

  get pino(): PinoLogger {
    this.pinoChild ??= this.core.basePino().child({ component: this.component, ...this.bindings });
    return this.pinoChild;
  }

  info(msg: string, fields?: LogFields): void {
    this.emit('I', 0, msg, fields);
  }

  warn(msg: string, fields?: LogFields): void {
    this.emit('W', 0, msg, fields);
  }

  error(msg: string, fields?: LogFields): void {
    this.emit('E', 0, msg, fields);
  }

  v(level: number): VerboseLogger | undefined {
    if (!(level <= this.verbosity)) return undefined;
    const cacheable = Number.isInteger(level) && level >= 0 && level < CACHED_LEVELS;
    let vl = cacheable ? this.verbose[level] : undefined;
    if (vl === undefined) {
      vl = { info: (msg, fields) => this.emit('I', level, msg, fields) };
      if (cacheable) this.verbose[level] = vl;
    }
    return vl;
  }

  child(bindings: ChildBindings): AgentLogger {
    const { component, ...rest } = bindings;
    const merged = Object.keys(rest).length === 0 ? this.bindings : { ...this.bindings, ...rest };
    return new Logger(this.core, component ?? this.component, merged);
  }

  private emit(sev: Severity, level: number, msg: string, fields: LogFields | undefined): void {
    const core = this.core;
    if (core.sink.isClosed) return;
    if (core.format === 'text') {
      const line = formatTextLine({
        sev,
        ms: core.nowMs(),
        pid: core.pid,
        source: this.component,
        msg,
        bindings: this.bindings,
        fields,
      });
      core.sink.write(sev, line);
      return;
    }
    const obj = jsonRecord(sev, level, msg, fields);
    const pino = this.pino;
    withCaller(callerOf(Logger.prototype.emit), () => {
      if (sev === 'I') pino.info(obj);
      else if (sev === 'W') pino.warn(obj);
      else pino.error(obj);
    });
  }
}
