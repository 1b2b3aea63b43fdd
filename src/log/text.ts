// klog's text format, one line per record:
//   I1122 02:39:27.123000   12345 agent] message err="boom" pod="ns/name" n=4
// Differences from klog, on purpose: the time is UTC (deterministic across
// hosts and tests; klog uses local time), microseconds come from a
// millisecond clock, the source is the component name instead of file:line,
// the message is not quoted, and multi-line values are escaped instead of
// being written as indented blocks, so that one record is always one line.

import { errorText } from './error-render.js';
import type { LogFields } from './types.js';

export type Severity = 'I' | 'W' | 'E' | 'F';

export interface TextRecord {
  sev: Severity;
  /** Unix time in milliseconds. */
  ms: number;
  pid: number;
  source: string;
  msg: string;
  bindings: LogFields;
  fields: LogFields | undefined;
}

// Tab is left alone: it cannot split a record and is common in pasted output.
const CONTROL_TEST = /[\u0000-\u0008\u000a-\u001f\u007f\u2028\u2029]/;
const CONTROL_ALL = new RegExp(CONTROL_TEST.source, 'g');

function escapeControl(ch: string): string {
  if (ch === '\n') return '\\n';
  if (ch === '\r') return '\\r';
  return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** Keeps a message on one line; other characters, backslashes included, are written as they are. */
export function escapeMessage(msg: string): string {
  return CONTROL_TEST.test(msg) ? msg.replace(CONTROL_ALL, escapeControl) : msg;
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** `Lmmdd hh:mm:ss.uuuuuu ppppppp source] ` with the pid right-aligned in 7 columns, as klog does. */
export function textHeader(sev: Severity, ms: number, pid: number, source: string): string {
  const d = new Date(ms);
  const micros = String(d.getUTCMilliseconds()).padStart(3, '0') + '000';
  return (
    `${sev}${pad2(d.getUTCMonth() + 1)}${pad2(d.getUTCDate())} ` +
    `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}.${micros} ` +
    `${String(pid).padStart(7)} ${source}] `
  );
}

function safeJson(value: object): string | undefined {
  const seen = new WeakSet<object>();
  try {
    return JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v === 'bigint') return v.toString();
      if (typeof v === 'object' && v !== null) {
        if (seen.has(v)) return '[Circular]';
        seen.add(v);
      }
      return v;
    });
  } catch {
    return JSON.stringify(String(value));
  }
}

/**
 * A value as klog writes it: strings always quoted (with JSON escaping, as
 * klog uses Go quoting), numbers, booleans and null bare, errors as their
 * quoted message, objects and arrays as JSON. `undefined` and functions are
 * dropped, as in JSON.
 */
export function formatValue(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    case 'undefined':
    case 'function':
      return undefined;
    case 'symbol':
      return JSON.stringify(value.toString());
    case 'object':
      if (value === null) return 'null';
      if (value instanceof Error) return JSON.stringify(errorText(value));
      if (value instanceof Date) {
        return JSON.stringify(Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString());
      }
      return safeJson(value);
    default:
      return JSON.stringify(String(value));
  }
}

function appendPair(line: string, key: string, value: unknown): string {
  const text = formatValue(value);
  return text === undefined ? line : `${line} ${key}=${text}`;
}

/**
 * Header, message, then `err` (klog puts the error first), the logger's
 * bindings, then the call's fields; a field overrides a binding of the same key.
 */
export function formatTextLine(r: TextRecord): string {
  let line = textHeader(r.sev, r.ms, r.pid, r.source) + escapeMessage(r.msg);
  const fields = r.fields;
  if (fields !== undefined && fields['err'] !== undefined) {
    line += ` err=${JSON.stringify(errorText(fields['err']))}`;
  }
  for (const key in r.bindings) {
    if (fields !== undefined && Object.hasOwn(fields, key)) continue;
    line = appendPair(line, key, r.bindings[key]);
  }
  if (fields !== undefined) {
    for (const key in fields) {
      if (key !== 'err') line = appendPair(line, key, fields[key]);
    }
  }
  return `${line}\n`;
}
