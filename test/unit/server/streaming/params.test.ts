// The streaming routes' parameter rules, as tables: path forms, stream
// options, commands, ports, the WebSocket test and the status mapping.
import { describe, expect, it } from 'vitest';
import {
  isWebSocketRequest,
  parseExecCommand,
  parsePodPath,
  parsePorts,
  parseRunCommand,
  parseStreamOptions,
  statusForGrpc,
} from '../../../../src/server/streaming/params.js';
import { backendRequestHead, sniffStatus } from '../../../../src/server/streaming/proxy.js';

const q = (s: string): URLSearchParams => new URLSearchParams(s);

describe('parsePodPath', () => {
  const rows: Array<[string, string, boolean, object | number]> = [
    ['/exec/ns/pod/c', '/exec/', true, { namespace: 'ns', pod: 'pod', uid: '', container: 'c' }],
    ['/exec/ns/pod/u1/c', '/exec/', true, { namespace: 'ns', pod: 'pod', uid: 'u1', container: 'c' }],
    ['/exec/ns/pod/c/', '/exec/', true, { namespace: 'ns', pod: 'pod', uid: '', container: 'c' }],
    ['/attach/ns/p%20q/c', '/attach/', true, { namespace: 'ns', pod: 'p q', uid: '', container: 'c' }],
    ['/portForward/ns/pod', '/portForward/', false, { namespace: 'ns', pod: 'pod', uid: '', container: '' }],
    ['/portForward/ns/pod/u1', '/portForward/', false, { namespace: 'ns', pod: 'pod', uid: 'u1', container: '' }],
    ['/exec/ns/pod', '/exec/', true, 404],
    ['/exec/ns/pod/u/c/extra', '/exec/', true, 404],
    ['/exec/ns//c', '/exec/', true, 404],
    ['/portForward/ns', '/portForward/', false, 404],
    ['/portForward/ns/pod/u/x', '/portForward/', false, 404],
    ['/exec/ns/p%zz/c', '/exec/', true, 400],
  ];
  it.each(rows)('%s', (path, prefix, withContainer, want) => {
    const r = parsePodPath(path, prefix, withContainer);
    if (typeof want === 'number') expect(r.ok ? 0 : r.refusal.status).toBe(want);
    else expect(r).toEqual({ ok: true, value: want });
  });
});

describe('parseStreamOptions', () => {
  const rows: Array<[string, object | undefined]> = [
    ['output=1', { stdin: false, stdout: true, stderr: false, tty: false }],
    ['input=1&output=1&error=1', { stdin: true, stdout: true, stderr: true, tty: false }],
    ['input=1&output=1&error=1&tty=1', { stdin: true, stdout: true, stderr: false, tty: true }],
    ['output=true', undefined],
    ['error=1&tty=1', undefined],
    ['', undefined],
  ];
  it.each(rows)('%s', (query, want) => {
    const r = parseStreamOptions(q(query));
    if (want === undefined) expect(r.ok ? 0 : r.refusal.status).toBe(400);
    else expect(r).toEqual({ ok: true, value: want });
  });
});

describe('commands', () => {
  it('exec takes every command value in order; /run splits cmd on spaces', () => {
    expect(parseExecCommand(q('command=sh&command=-c&command=a b'))).toEqual({ ok: true, value: ['sh', '-c', 'a b'] });
    expect(parseExecCommand(q('')).ok).toBe(false);
    expect(parseRunCommand(q('cmd=ls -l /'))).toEqual({ ok: true, value: ['ls', '-l', '/'] });
    expect(parseRunCommand(q('cmd=')).ok).toBe(false);
    expect(parseRunCommand(q('')).ok).toBe(false);
  });
});

describe('parsePorts', () => {
  const rows: Array<[string, boolean, number[] | string]> = [
    ['port=80', true, [80]],
    ['port=80,443&port=8080', true, [80, 443, 8080]],
    ['port=65535', true, [65535]],
    ['', true, '"port" is required'],
    ['port=65536', true, 'unable to parse'],
    ['port=-1', true, 'unable to parse'],
    ['port=0', true, 'must be > 0'],
    ['port=', true, 'unable to parse'],
    ['port=80', false, []],
    ['', false, []],
  ];
  it.each(rows)('%s websocket=%s', (query, ws, want) => {
    const r = parsePorts(q(query), ws);
    if (typeof want === 'string') expect(r.ok ? '' : r.refusal.message).toContain(want);
    else expect(r).toEqual({ ok: true, value: want });
  });
});

describe('small rules', () => {
  it('recognises WebSocket requests as upstream does', () => {
    expect(isWebSocketRequest({ connection: 'keep-alive, Upgrade', upgrade: 'WebSocket' })).toBe(true);
    expect(isWebSocketRequest({ connection: 'Upgrade', upgrade: 'SPDY/3.1' })).toBe(false);
    expect(isWebSocketRequest({ upgrade: 'websocket' })).toBe(false);
  });
  it('maps runtime statuses to HTTP as streaming.WriteError', () => {
    expect(['NOT_FOUND', 'RESOURCE_EXHAUSTED', 'OUT_OF_RANGE', 'UNAVAILABLE', 'INVALID_ARGUMENT'].map(statusForGrpc)).toEqual([404, 429, 416, 500, 500]);
  });
  it('reads a response status from its first bytes', () => {
    expect(sniffStatus(Buffer.from('HTTP/1.1 101 Switching Protocols\r\n'))).toBe(101);
    expect(sniffStatus(Buffer.from('garbage'))).toBe(502);
  });
  it('writes the runtime request with the target path, the client headers, no credentials, and X-Forwarded-For', () => {
    const head = backendRequestHead(
      {
        method: 'POST',
        rawHeaders: ['Host', 'node:10250', 'Authorization', 'Bearer t', 'Upgrade', 'SPDY/3.1', 'X-Forwarded-For', '10.0.0.1', 'Bad', 'a\r\nInjected: 1'],
        headers: { 'x-forwarded-for': '10.0.0.1' },
      },
      new URL('http://127.0.0.1:4000/exec/tok?x=1'),
      '127.0.0.1',
    );
    expect(head).toBe('POST /exec/tok?x=1 HTTP/1.1\r\nHost: 127.0.0.1:4000\r\nUpgrade: SPDY/3.1\r\nX-Forwarded-For: 10.0.0.1, 127.0.0.1\r\n\r\n');
  });
});
