// A JSON reader for request bodies that reports what JSON.parse hides:
// duplicate keys (JSON.parse keeps the last silently), the byte offset of a
// syntax error, and nesting deeper than MAX_JSON_DEPTH. Iterative (an explicit
// stack), so depth costs heap, not call stack. Pure and synchronous; called by
// decodeJsonStrict once per request body. Duplicate keys keep the last value,
// as Go's encoding/json does.

import { CodecError } from './errors.js';

/** Go's encoding/json (and so kube-apiserver's JSON decoder) stops at 10000 levels. */
export const MAX_JSON_DEPTH = 10000;

export interface StrictJson {
  value: unknown;
  /** Paths of keys that appeared more than once in their object, e.g. `metadata.name`. */
  duplicates: string[];
}

interface Frame {
  container: Record<string, unknown> | unknown[];
  isArray: boolean;
  key: string;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

function pathOf(stack: Frame[], upTo = stack.length): string {
  let p = '';
  for (let i = 0; i < upTo; i++) {
    const f = stack[i] as Frame;
    if (f.isArray) p += `[${(f.container as unknown[]).length}]`;
    else p = p === '' ? f.key : `${p}.${f.key}`;
  }
  return p;
}

function describe(s: string, pos: number): string {
  if (pos >= s.length) return 'unexpected end of JSON input';
  return `invalid character ${JSON.stringify(s[pos])}`;
}

/** Parses `input` (UTF-8 bytes or text). Throws CodecError ESYNTAX (with `offset` in bytes) or EDEPTH (with `field`). */
export function parseJsonStrict(input: Uint8Array | string, maxDepth = MAX_JSON_DEPTH): StrictJson {
  const s = typeof input === 'string' ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength).toString('utf8');
  const n = s.length;
  let pos = 0;
  const duplicates: string[] = [];
  const stack: Frame[] = [];

  const fail = (what: string, at = pos): never => {
    const offset = Buffer.byteLength(s.slice(0, at));
    throw new CodecError('ESYNTAX', `invalid JSON at byte offset ${offset}: ${what}`, { offset, detail: what });
  };
  const ws = (): void => {
    while (pos < n) {
      const c = s.charCodeAt(pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) pos++;
      else break;
    }
  };
  const str = (): string => {
    const start = pos;
    pos++;
    let slow = false;
    for (;;) {
      if (pos >= n) fail('unexpected end of JSON input in string');
      const c = s.charCodeAt(pos);
      if (c === 0x22) break;
      if (c === 0x5c) {
        slow = true;
        pos += 2;
        continue;
      }
      if (c < 0x20) fail(`invalid character ${JSON.stringify(s[pos])} in string literal`);
      pos++;
    }
    pos++;
    if (!slow) return s.slice(start + 1, pos - 1);
    try {
      return JSON.parse(s.slice(start, pos)) as string;
    } catch {
      return fail('invalid escape in string literal', start);
    }
  };
  const key = (): string => {
    ws();
    if (s.charCodeAt(pos) !== 0x22) fail(`${describe(s, pos)} looking for beginning of object key string`);
    const k = str();
    ws();
    if (s.charCodeAt(pos) !== 0x3a) fail(`${describe(s, pos)} after object key`);
    pos++;
    return k;
  };
  const open = (isArray: boolean): boolean => {
    if (stack.length >= maxDepth) {
      throw new CodecError('EDEPTH', `JSON nesting exceeds the maximum depth of ${maxDepth} at ${JSON.stringify(pathOf(stack))}`, { field: pathOf(stack), offset: Buffer.byteLength(s.slice(0, pos)), detail: `exceeded max depth of ${maxDepth}` });
    }
    pos++;
    ws();
    const close = isArray ? 0x5d : 0x7d;
    if (s.charCodeAt(pos) === close) {
      pos++;
      return false;
    }
    stack.push({ container: isArray ? [] : {}, isArray, key: isArray ? '' : key() });
    return true;
  };

  let value: unknown;
  ws();
  for (;;) {
    // A value starts at pos.
    ws();
    const c = s.charCodeAt(pos);
    if (c === 0x7b) {
      if (open(false)) continue;
      value = {};
    } else if (c === 0x5b) {
      if (open(true)) continue;
      value = [];
    } else if (c === 0x22) value = str();
    else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      NUMBER.lastIndex = pos;
      const m = NUMBER.exec(s);
      if (m === null) fail(`${describe(s, pos + 1)} in numeric literal`);
      value = Number((m as RegExpExecArray)[0]);
      pos = NUMBER.lastIndex;
    } else if (s.startsWith('true', pos)) {
      value = true;
      pos += 4;
    } else if (s.startsWith('false', pos)) {
      value = false;
      pos += 5;
    } else if (s.startsWith('null', pos)) {
      value = null;
      pos += 4;
    } else fail(`${describe(s, pos)} looking for beginning of value`);

    // The value is complete: store it in its container, closing containers as they end.
    for (;;) {
      const top = stack[stack.length - 1];
      if (top === undefined) {
        ws();
        if (pos < n) fail(`${describe(s, pos)} after top-level value`);
        return { value, duplicates };
      }
      if (top.isArray) (top.container as unknown[]).push(value);
      else {
        const obj = top.container as Record<string, unknown>;
        if (Object.hasOwn(obj, top.key)) duplicates.push(pathOf(stack));
        if (top.key === '__proto__') Object.defineProperty(obj, top.key, { value, enumerable: true, writable: true, configurable: true });
        else obj[top.key] = value;
      }
      ws();
      const d = s.charCodeAt(pos);
      if (d === 0x2c) {
        pos++;
        if (!top.isArray) top.key = key();
        break;
      }
      if (d === (top.isArray ? 0x5d : 0x7d)) {
        pos++;
        stack.pop();
        value = top.container;
        continue;
      }
      fail(`${describe(s, pos)} after ${top.isArray ? 'array element' : 'object key:value pair'}`);
    }
  }
}
