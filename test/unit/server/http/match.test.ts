// The node servers' pure request checks: target parsing, route matching, body and upgrade classification.
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, resolveLimits } from '../../../../src/server/http/limits.js';
import { certificatePresented, checkBody, covers, matchRoute, parseTarget, upgradeKind, visibleRoutes } from '../../../../src/server/http/match.js';
import type { Route } from '../../../../src/server/types.js';

describe('parseTarget', () => {
  it.each([
    ['/pods', '/pods', ''],
    ['/containerLogs/ns/pod/c?follow=true&tailLines=10', '/containerLogs/ns/pod/c', '?follow=true&tailLines=10'],
    ['/healthz/my%20check', '/healthz/my%20check', ''],
    ['//pods', '//pods', ''],
    ['/stats/summary?only_cpu_and_memory=true', '/stats/summary', '?only_cpu_and_memory=true'],
    ['/q?a=%E2%9C%93+b', '/q', '?a=%E2%9C%93+b'],
  ])('accepts %s', (raw, pathname, search) => {
    const r = parseTarget(raw);
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.url.pathname).toBe(pathname);
      expect(r.url.search).toBe(search);
    }
  });

  it.each([
    [undefined, 'absolute path'],
    ['*', 'absolute path'],
    ['http://evil/pods', 'absolute path'],
    ['/pods%', 'malformed percent escape'],
    ['/pods%zz', 'malformed percent escape'],
    ['/pods/%C0%AF', 'not valid UTF-8'],
    ['/pods/../configz', '".."'],
    ['/pods/%2e%2e/configz', '".."'],
    ['/./pods', '"."'],
    ['/containerLogs/ns%2Fother/pod/c', 'separator or control'],
    ['/containerLogs/ns/pod%00/c', 'separator or control'],
    ['/containerLogs/ns/pod%252e%252e/c', 'encoded twice'],
    ['/pods\\..\\configz', 'backslash'],
    ['/pods?x=%', 'query has a malformed'],
    ['/pods?x=%ff', 'query has a percent escape that is not valid UTF-8'],
  ])('refuses %s', (raw, why) => {
    const r = parseTarget(raw);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toContain(why);
  });
});

const route = (path: string, methods: string[] = ['GET'], flags: Partial<Pick<Route, 'readOnly' | 'debugging'>> = {}): Route => ({
  path,
  methods,
  readOnly: flags.readOnly ?? false,
  debugging: flags.debugging ?? false,
  handle: async () => {},
});

describe('matchRoute', () => {
  const pods = route('/pods');
  const stats = route('/stats/');
  const summary = route('/stats/summary');
  const execGet = route('/exec/', ['GET']);
  const execPost = route('/exec/', ['POST']);
  const all = [pods, stats, summary, execGet, execPost];

  it.each([
    ['/pods', 'GET', pods],
    ['/pods', 'HEAD', pods],
    ['/stats', 'GET', stats],
    ['/stats/', 'GET', stats],
    ['/stats/container', 'GET', stats],
    ['/stats/summary', 'GET', summary],
    ['/stats/summary/x', 'GET', stats],
    ['/exec/ns/p/c', 'GET', execGet],
    ['/exec/ns/p/c', 'POST', execPost],
  ])('%s %s → the route', (path, method, want) => {
    expect(matchRoute(all, path, method)).toEqual({ kind: 'route', route: want });
  });

  it.each(['/pods/', '/podsx', '/statsx', '/', '/Pods', '//pods'])('%s → not found', (path) => {
    expect(matchRoute(all, path, 'GET')).toEqual({ kind: 'notFound' });
  });

  it('a method no route of the path answers → 405 with the allowed ones', () => {
    expect(matchRoute(all, '/pods', 'DELETE')).toEqual({ kind: 'methodNotAllowed', path: '/pods', allow: ['GET', 'HEAD'] });
    expect(matchRoute(all, '/exec/ns/p/c', 'PUT')).toEqual({ kind: 'methodNotAllowed', path: '/exec/', allow: ['GET', 'HEAD', 'POST'] });
  });

  it('covers on whole segments', () => {
    expect(covers('/logs/', '/logs')).toBe(true);
    expect(covers('/logs/', '/logsx')).toBe(false);
    expect(covers('/configz', '/configz/')).toBe(false);
  });
});

describe('visibleRoutes', () => {
  const ro = route('/pods', ['GET'], { readOnly: true });
  const dbg = route('/exec/', ['POST'], { debugging: true });
  const main = route('/configz', ['GET'], { debugging: true });
  const plain = route('/metrics/x');
  it.each([
    ['main', true, [ro, dbg, main, plain]],
    ['main', false, [ro, plain]],
    ['readOnly', true, [ro]],
    ['readOnly', false, [ro]],
  ] as const)('%s server, debugging %s', (server, debugging, want) => {
    expect(visibleRoutes([ro, dbg, main, plain], server, debugging)).toEqual(want);
  });
});

describe('checkBody', () => {
  it.each([
    [{}, { ok: true }],
    [{ 'content-length': '10' }, { ok: true }],
    [{ 'content-length': '101' }, { ok: false, status: 413 }],
    [{ 'transfer-encoding': 'chunked' }, { ok: false, status: 411 }],
    [{ 'transfer-encoding': 'chunked', 'content-length': '5' }, { ok: true }],
  ])('%j', (headers, want) => {
    expect(checkBody(headers, 100)).toMatchObject(want);
  });
});

describe('upgradeKind and certificatePresented', () => {
  it.each([
    ['websocket', 'websocket'],
    ['WebSocket', 'websocket'],
    ['SPDY/3.1', 'spdy'],
    ['h2c', ''],
    [undefined, ''],
  ])('%s → %s', (h, want) => expect(upgradeKind(h)).toBe(want));
  it('an empty peer certificate object means none was presented', () => {
    expect(certificatePresented({})).toBe(false);
    expect(certificatePresented(undefined)).toBe(false);
    expect(certificatePresented({ subject: { CN: 'x' } })).toBe(true);
  });
});

describe('resolveLimits', () => {
  it('fills defaults, keeps given values, lifts the request timeout above the headers timeout', () => {
    expect(resolveLimits(undefined)).toEqual(DEFAULT_LIMITS);
    expect(resolveLimits({ maxConnections: 3, headersTimeoutMs: 400_000 })).toMatchObject({ maxConnections: 3, headersTimeoutMs: 400_000, requestTimeoutMs: 400_000 });
    expect(DEFAULT_LIMITS.maxConnectionAgeMs).toBe(4 * 3600 * 1000);
  });
  it.each([0, -1, 1.5, Number.NaN])('refuses %s', (v) => {
    expect(() => resolveLimits({ maxBodyBytes: v })).toThrow(/maxBodyBytes must be a positive integer/);
  });
});
