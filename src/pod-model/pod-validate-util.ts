// Shared pieces of pod validation: the name syntaxes of apimachinery's
// validation package and a problem sink. Pure; no I/O.
import { isIP } from 'node:net';
import { parseQuantity } from '../config/values/quantity.js';
import type { DecodeProblem } from './pod-decode.js';

/** Records one problem; `field` is the full path, e.g. `spec.containers[0].image`. */
export type Report = (field: string, message: string) => void;

export function collector(): { out: DecodeProblem[]; report: Report } {
  const out: DecodeProblem[] = [];
  return { out, report: (field, message) => void out.push({ field, message }) };
}

const SHOWN_MAX = 100;

/** A value for a message: JSON-quoted (control characters escaped) and cut short, so one bad field cannot flood a log line. */
export function quote(value: string): string {
  return JSON.stringify(short(value));
}

/** A map key or value inside a field path or message, cut short. */
export function short(value: string): string {
  return value.length <= SHOWN_MAX ? value : `${value.slice(0, SHOWN_MAX)}…(${value.length} characters)`;
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const IANA_SVC_NAME = /^(?=.*[a-z])[a-z0-9]([a-z0-9]|-(?=[a-z0-9]))*$/;
const HTTP_HEADER_NAME = /^[-A-Za-z0-9]+$/;
const CONFIG_MAP_KEY = /^[-._a-zA-Z0-9]+$/;

export const MAX_INT32 = 2147483647;
const QUANTITY_MAX = 128;

export function isDns1123Label(s: string): boolean {
  return s.length <= 63 && DNS1123_LABEL.test(s);
}

export function isDns1123Subdomain(s: string): boolean {
  return s.length <= 253 && DNS1123_SUBDOMAIN.test(s);
}

/** Checks a DNS-1123 label field and reports it (required when empty). */
export function checkLabel(value: string, field: string, report: Report): void {
  if (value === '') report(field, 'required value');
  else if (!isDns1123Label(value)) report(field, `${quote(value)} must be a lowercase RFC 1123 label (a-z, 0-9, '-', at most 63 characters)`);
}

/** Checks a DNS-1123 subdomain field and reports it (required when empty). */
export function checkSubdomain(value: string, field: string, report: Report): void {
  if (value === '') report(field, 'required value');
  else if (!isDns1123Subdomain(value)) report(field, `${quote(value)} must be a lowercase RFC 1123 subdomain (a-z, 0-9, '-' and '.', at most 253 characters)`);
}

/** An IPv4 or IPv6 address as Go's net.ParseIP reads it: no zone, no brackets. */
export function isIpAddress(s: string): boolean {
  return !s.includes('%') && isIP(s) !== 0;
}

export function isIanaServiceName(s: string): boolean {
  return s.length <= 15 && IANA_SVC_NAME.test(s);
}

export const isHttpHeaderName = (s: string): boolean => HTTP_HEADER_NAME.test(s);

/** A ConfigMap/Secret key: at most 253 of `[-._a-zA-Z0-9]`, not `.` or `..`, not starting with `..`. */
export function isConfigMapKey(s: string): boolean {
  return s.length > 0 && s.length <= 253 && CONFIG_MAP_KEY.test(s) && s !== '.' && !s.startsWith('..');
}

/** A port given as a number (1-65535) or as a container port's name (IANA service name). */
export function checkPortNumOrName(port: number | string, field: string, report: Report): void {
  if (typeof port === 'number') {
    if (port < 1 || port > 65535) report(field, `must be between 1 and 65535, got ${port}`);
  } else if (!isIanaServiceName(port)) {
    report(field, `${quote(port)} must be a port number or an IANA service name (at most 15 lowercase letters, digits and '-', with a letter)`);
  }
}

/** The API's rule for numeric fields that may be zero (zero meaning "the default"). */
export function checkNonNegative(value: number | undefined, field: string, report: Report): void {
  if (value !== undefined && value < 0) report(field, `must be greater than or equal to 0, got ${value}`);
}

/** User and group IDs: 0 to 2147483647, as IsValidUserID/IsValidGroupID. */
export function checkId(value: number | undefined, field: string, report: Report): void {
  if (value !== undefined && (value < 0 || value > MAX_INT32)) report(field, `must be between 0 and ${MAX_INT32}, inclusive, got ${value}`);
}

/** A relative path that stays below its base: not absolute, no `..` element. */
export function checkLocalDescendingPath(path: string, field: string, report: Report): void {
  if (path.startsWith('/')) report(field, 'must be a relative path');
  if (path.split('/').includes('..')) report(field, "must not contain '..'");
}

/** The quantity's value, or the reason it does not parse. */
export function quantityValue(text: string): { ok: true; value: number; integer: boolean } | { ok: false; message: string } {
  // No real quantity is this long; refusing early keeps the parser's message (which quotes the text) short.
  if (text.length > QUANTITY_MAX) return { ok: false, message: `invalid quantity ${quote(text)}: longer than ${QUANTITY_MAX} characters` };
  try {
    const q = parseQuantity(text);
    return { ok: true, value: q.value, integer: Number.isInteger(q.value) };
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}
