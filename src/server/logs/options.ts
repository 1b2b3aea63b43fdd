// The query of /containerLogs/{namespace}/{pod}/{container}, decoded and
// validated as the kubelet decodes v1.PodLogOptions from query parameters
// (bools: anything but "0"/"false" is true, "?follow" alone included; ints:
// decimal int64; sinceTime: RFC 3339; the legacy `tail` alias with "all")
// and then validates them (ValidatePodLogOptions). A value that does not
// decode is 400, a decoded one that is invalid is 422, as upstream; both
// messages name the parameter. Pure: the clock is an argument.
import { logTimeMs, parseLogTime } from './cri-format.js';

export interface ContainerLogOptions {
  readonly follow: boolean;
  readonly previous: boolean;
  readonly timestamps: boolean;
  /** Last N lines only; undefined: all. */
  readonly tailLines: number | undefined;
  /** Output cut after N bytes; undefined: no limit. */
  readonly limitBytes: number | undefined;
  /** Lines stamped before this (ms since the epoch) are skipped; undefined: none. */
  readonly sinceMs: number | undefined;
}

export type LogOptionsResult =
  | { readonly ok: true; readonly options: ContainerLogOptions }
  | { readonly ok: false; readonly status: 400 | 422; readonly message: string };

const bool = (v: string | null): boolean => v !== null && v !== '0' && v.toLowerCase() !== 'false';

const INT = /^[+-]?\d+$/;

/** Decodes one int64 parameter; a string that is not one is a decode error naming it. */
function int(q: URLSearchParams, name: string): { value: number | undefined } | { error: string } {
  const v = q.get(name);
  if (v === null || v === '') return { value: undefined };
  if (!INT.test(v)) return { error: `${name}: invalid value ${JSON.stringify(v)}: not an integer` };
  const n = Number(v);
  if (!Number.isSafeInteger(n)) return { error: `${name}: invalid value ${JSON.stringify(v)}: out of range` };
  return { value: n };
}

/** Pure: query + now → options or the status and message to answer. */
export function parseLogQuery(q: URLSearchParams, nowMs: number): LogOptionsResult {
  const query = new URLSearchParams(q);
  // The kubelet's backwards compatibility: `tail` stands for tailLines; "all" means no limit.
  const tail = q.get('tail');
  if (tail !== null && tail !== '') {
    if (tail === 'all') query.delete('tailLines');
    else query.set('tailLines', tail);
  }
  const decodeErr = (message: string): LogOptionsResult => ({ ok: false, status: 400, message: `Unable to decode query: ${message}` });
  const invalid = (message: string): LogOptionsResult => ({ ok: false, status: 422, message: `Invalid request: ${message}` });

  const tailLines = int(query, 'tailLines');
  if ('error' in tailLines) return decodeErr(tailLines.error);
  const limitBytes = int(query, 'limitBytes');
  if ('error' in limitBytes) return decodeErr(limitBytes.error);
  const sinceSeconds = int(query, 'sinceSeconds');
  if ('error' in sinceSeconds) return decodeErr(sinceSeconds.error);
  const sinceTimeRaw = query.get('sinceTime');
  let sinceTime: number | undefined;
  if (sinceTimeRaw !== null && sinceTimeRaw !== '') {
    const t = parseLogTime(sinceTimeRaw);
    if (!t) return decodeErr(`sinceTime: invalid value ${JSON.stringify(sinceTimeRaw)}: not an RFC 3339 time`);
    sinceTime = logTimeMs(t);
  }

  if (tailLines.value !== undefined && tailLines.value < 0) return invalid(`tailLines: invalid value ${tailLines.value}: must be greater than or equal to 0`);
  if (limitBytes.value !== undefined && limitBytes.value < 1) return invalid(`limitBytes: invalid value ${limitBytes.value}: must be greater than 0`);
  if (sinceSeconds.value !== undefined && sinceTime !== undefined) return invalid('at most one of sinceTime or sinceSeconds may be specified');
  if (sinceSeconds.value !== undefined && sinceSeconds.value < 1) return invalid(`sinceSeconds: invalid value ${sinceSeconds.value}: must be greater than 0`);

  return {
    ok: true,
    options: {
      follow: bool(query.get('follow')),
      previous: bool(query.get('previous')),
      timestamps: bool(query.get('timestamps')),
      tailLines: tailLines.value,
      limitBytes: limitBytes.value,
      sinceMs: sinceSeconds.value !== undefined ? nowMs - sinceSeconds.value * 1000 : sinceTime,
    },
  };
}
