import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ApiError, apiErrors, type Status } from '../../../../src/api/errors.js';
import { StaticTokenAuthenticator } from '../../../../src/apiserver/authn/static-token.js';
import { compose, type RequestContext } from '../../../../src/apiserver/http/context.js';
import { withAuthentication } from '../../../../src/apiserver/http/filters/authentication.js';
import { authorizeWith, forbidden, mastersOnly, withAuthorization } from '../../../../src/apiserver/http/filters/authorization.js';
import { readBody, withBodyLimit } from '../../../../src/apiserver/http/filters/body-limit.js';
import { withRecovery } from '../../../../src/apiserver/http/filters/recovery.js';
import { withRequestLog } from '../../../../src/apiserver/http/filters/request-log.js';
import { isLongRunning, requestDeadlineMs, withTimeout } from '../../../../src/apiserver/http/filters/timeout.js';
import { requestInfoFor } from '../../../../src/apiserver/http/request-info.js';
import { notFoundHandler, routes } from '../../../../src/apiserver/http/routes.js';
import { writeStatus } from '../../../../src/apiserver/http/status.js';
import type { AuthorizationAttributes, Authorizer, UserInfo } from '../../../../src/apiserver/types.js';
import { testLogger } from '../../../helpers/test-logger.js';

class FakeRes {
  statusCode = 200;
  headers: Record<string, unknown> = {};
  body = '';
  headersSent = false;
  writableEnded = false;
  destroyed = false;
  setHeader(k: string, v: unknown): this {
    this.headers[k.toLowerCase()] = v;
    return this;
  }
  writeHead(code: number): this {
    this.statusCode = code;
    this.headersSent = true;
    return this;
  }
  end(b?: string): this {
    if (b !== undefined) this.body += b;
    this.headersSent = true;
    this.writableEnded = true;
    return this;
  }
  destroy(): void {
    this.destroyed = true;
  }
  status(): Status {
    return JSON.parse(this.body) as Status;
  }
}

function ctxFor(method: string, path: string, opts: { headers?: Record<string, string>; body?: Buffer[]; user?: UserInfo } = {}) {
  const url = new URL(path, 'https://apiserver');
  const req = Object.assign(Readable.from(opts.body ?? []), { method, url: path, headers: opts.headers ?? {}, socket: { remoteAddress: '127.0.0.1', remotePort: 1 } });
  const res = new FakeRes();
  const log = testLogger();
  const ctx: RequestContext = {
    req: req as unknown as IncomingMessage,
    res: res as unknown as ServerResponse,
    id: 'req-1',
    url,
    info: requestInfoFor(method, url),
    user: opts.user,
    abort: new AbortController(),
    body: () => Promise.resolve(Buffer.alloc(0)),
    log,
    startedNs: process.hrtime.bigint(),
  };
  return { ctx, res, log };
}

const alice: UserInfo = { name: 'alice', uid: '', groups: ['system:authenticated'], extra: {} };
const admin: UserInfo = { name: 'admin', uid: '', groups: ['system:masters', 'system:authenticated'], extra: {} };
const ok = async (): Promise<void> => {};

describe('compose', () => {
  it('runs filters outermost first, then the endpoint', async () => {
    const seen: string[] = [];
    const f = (n: string) => async (_c: RequestContext, next: () => Promise<void>) => {
      seen.push(`${n}>`);
      await next();
      seen.push(`<${n}`);
    };
    await compose([f('a'), f('b')], async () => void seen.push('end'))(ctxFor('GET', '/x').ctx);
    expect(seen).toEqual(['a>', 'b>', 'end', '<b', '<a']);
  });
});

describe('writeStatus', () => {
  it('writes the Status JSON with its code and headers', () => {
    const { res } = ctxFor('GET', '/x');
    writeStatus(res as unknown as ServerResponse, apiErrors.tooManyRequests('slow down', 2));
    expect(res.statusCode).toBe(429);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['retry-after']).toBe('2');
    expect(res.status()).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'TooManyRequests', code: 429 });
  });
  it('cuts off a response that has started instead', () => {
    const { res } = ctxFor('GET', '/x');
    res.headersSent = true;
    writeStatus(res as unknown as ServerResponse, apiErrors.internal('x'));
    expect(res.destroyed).toBe(true);
  });
});

describe('withRecovery', () => {
  it('an ApiError becomes its Status', async () => {
    const { ctx, res } = ctxFor('GET', '/x');
    await withRecovery(ctx, () => Promise.reject(apiErrors.notFound({ group: '', resource: 'pods' }, 'p')));
    expect(res.statusCode).toBe(404);
    expect(res.status().message).toBe('pods "p" not found');
  });
  it('anything else becomes 500 InternalError and an error log line', async () => {
    const { ctx, res, log } = ctxFor('GET', '/x');
    await withRecovery(ctx, () => Promise.reject(new TypeError('boom')));
    expect(res.statusCode).toBe(500);
    expect(res.status()).toMatchObject({ reason: 'InternalError', message: 'Internal error occurred: boom', code: 500 });
    expect(log.records.some((r) => r.level === 'error')).toBe(true);
  });
});

describe('withRequestLog', () => {
  it('sends the Audit-Id and logs the request at -v=3 with its status', async () => {
    const { ctx, res, log } = ctxFor('GET', '/api/v1/pods');
    await withRequestLog(ctx, async () => void res.writeHead(201).end());
    expect(res.headers['audit-id']).toBe('req-1');
    expect(log.records).toEqual([expect.objectContaining({ level: 'v3', msg: 'HTTP', fields: expect.objectContaining({ verb: 'GET', URI: '/api/v1/pods', resp: 201, 'audit-ID': 'req-1' }) })]);
  });
});

describe('withAuthentication', () => {
  const filter = withAuthentication([new StaticTokenAuthenticator(new Map([['t1', { name: 'alice', uid: 'u', groups: [], extra: {} }]]))]);
  it('no credentials → 401 Unauthorized', async () => {
    const { ctx } = ctxFor('GET', '/api/v1/pods');
    await expect(filter(ctx, ok)).rejects.toMatchObject({ code: 401, reason: 'Unauthorized', message: 'Unauthorized' });
  });
  it('an unknown token → 401', async () => {
    const { ctx } = ctxFor('GET', '/api/v1/pods', { headers: { authorization: 'Bearer nope' } });
    await expect(filter(ctx, ok)).rejects.toMatchObject({ code: 401 });
  });
  it('a known token sets the user', async () => {
    const { ctx } = ctxFor('GET', '/api/v1/pods', { headers: { authorization: 'Bearer t1' } });
    await filter(ctx, ok);
    expect(ctx.user?.name).toBe('alice');
  });
  it('an authenticator that fails is a 401 too, logged', async () => {
    const broken = withAuthentication([{ authenticate: () => Promise.reject(new Error('jwks down')) }]);
    const { ctx, log } = ctxFor('GET', '/api/v1/pods', { headers: { authorization: 'Bearer x' } });
    await expect(broken(ctx, ok)).rejects.toMatchObject({ code: 401 });
    expect(log.records[0]?.level).toBe('error');
  });
  it.each(['/healthz', '/livez', '/readyz'])('%s needs no credentials', async (path) => {
    const { ctx } = ctxFor('GET', path);
    await filter(ctx, ok);
    expect(ctx.user).toBeUndefined();
  });
});

describe('authorization', () => {
  const attrs = (over: Partial<AuthorizationAttributes>): AuthorizationAttributes => ({ user: alice, verb: 'list', isResourceRequest: true, path: '/api/v1/namespaces/ns/pods', apiGroup: '', apiVersion: 'v1', namespace: 'ns', resource: 'pods', subresource: '', name: '', ...over });
  it.each<[string, Partial<AuthorizationAttributes>, number, string]>([
    ['namespaced list', {}, 403, 'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "ns"'],
    ['named, with a subresource', { verb: 'patch', resource: 'pods', subresource: 'status', name: 'p1' }, 403, 'pods "p1" is forbidden: User "alice" cannot patch resource "pods/status" in API group "" in the namespace "ns"'],
    ['cluster scope, named group', { verb: 'get', apiGroup: 'certificates.platform.io', resource: 'clustertrustbundles', namespace: '', name: 'b' }, 403, 'clustertrustbundles.certificates.platform.io "b" is forbidden: User "alice" cannot get resource "clustertrustbundles" in API group "certificates.platform.io" at the cluster scope'],
    ['a non-resource path', { isResourceRequest: false, verb: 'get', path: '/version', resource: '', namespace: '' }, 403, 'forbidden: User "alice" cannot get path "/version"'],
  ])('%s', (_n, over, code, message) => {
    const e = forbidden(attrs(over), '');
    expect({ code: e.code, reason: e.reason, message: e.message }).toEqual({ code, reason: 'Forbidden', message });
  });
  it('a reason is appended', () => {
    expect(forbidden(attrs({}), 'no RBAC policy matched').message).toMatch(/"ns": no RBAC policy matched$/);
  });
  const allow: Authorizer = { authorize: () => Promise.resolve({ allowed: true, reason: 'ok' }) };
  const deny: Authorizer = { authorize: () => Promise.resolve({ allowed: false, reason: 'denied', noOpinion: false }) };
  const none: Authorizer = { authorize: () => Promise.resolve({ allowed: false, reason: 'no opinion', noOpinion: true }) };
  it.each<[string, Authorizer[], boolean]>([
    ['allow', [allow], true],
    ['no opinion, then allow', [none, allow], true],
    ['deny stops the chain', [deny, allow], false],
    ['nobody has an opinion', [none, none], false],
    ['empty chain', [], false],
  ])('chain: %s', async (_n, chain, allowed) => {
    expect((await authorizeWith(chain, attrs({}))).allowed).toBe(allowed);
  });
  it('mastersOnly: system:masters passes, others get 403', async () => {
    const filter = withAuthorization([mastersOnly]);
    const a = ctxFor('GET', '/api/v1/namespaces/ns/pods', { user: admin });
    await filter(a.ctx, ok);
    const b = ctxFor('GET', '/api/v1/namespaces/ns/pods', { user: alice });
    await expect(filter(b.ctx, ok)).rejects.toMatchObject({ code: 403, message: 'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "ns"' });
  });
});

describe('withTimeout', () => {
  it.each([
    ['GET', '/api/v1/pods?watch=1', true],
    ['GET', '/api/v1/namespaces/ns/pods/p/log', true],
    ['POST', '/api/v1/namespaces/ns/pods/p/exec', true],
    ['GET', '/api/v1/pods', false],
    ['GET', '/version', false],
  ])('%s %s long-running: %s', (method, path, want) => {
    expect(isLongRunning(requestInfoFor(method, new URL(path, 'https://h')))).toBe(want);
  });
  it.each<[string, number | RegExp]>([
    ['', 60_000],
    ['timeout=10s', 10_000],
    ['timeout=5m', 60_000],
    ['timeout=abc', /invalid timeout specified in the request URL/],
    ['timeout=-1s', /must be a positive value/],
  ])('deadline for ?%s', (q, want) => {
    const f = (): number => requestDeadlineMs(new URLSearchParams(q), 60_000);
    if (typeof want === 'number') expect(f()).toBe(want);
    else expect(f).toThrow(want);
  });
  it('a request past its deadline: its signal aborts and the client gets 504', async () => {
    const { ctx, res } = ctxFor('GET', '/api/v1/pods');
    await withTimeout(20)(ctx, () => new Promise<void>((resolve) => ctx.abort.signal.addEventListener('abort', () => resolve())));
    expect(ctx.abort.signal.reason).toBeInstanceOf(ApiError);
    expect(res.statusCode).toBe(504);
    expect(res.status()).toMatchObject({ reason: 'Timeout', message: 'Timeout: request did not complete within the allotted timeout' });
  });
  it('a watch is not timed out (its timer would be the only thing keeping this test alive)', async () => {
    const { ctx } = ctxFor('GET', '/api/v1/pods?watch=1');
    await withTimeout(1)(ctx, ok);
    expect(ctx.abort.signal.aborted).toBe(false);
  });
});

describe('body limit', () => {
  it('a declared Content-Length over the limit → 413 after the refused body is read, without calling the handler', async () => {
    const { ctx } = ctxFor('POST', '/api/v1/namespaces/ns/pods', { headers: { 'content-length': '11' }, body: [Buffer.alloc(11)] });
    let called = false;
    await expect(withBodyLimit(10)(ctx, async () => void (called = true))).rejects.toMatchObject({ code: 413, message: 'Request entity too large: limit is 10' });
    expect(called).toBe(false);
  });
  it('a streamed body over the limit fails ctx.body() with 413', async () => {
    const { ctx } = ctxFor('POST', '/api/v1/namespaces/ns/pods', { body: [Buffer.alloc(6), Buffer.alloc(6)] });
    await withBodyLimit(10)(ctx, async () => {
      await expect(ctx.body()).rejects.toMatchObject({ code: 413 });
    });
  });
  it('a body within the limit is read once', async () => {
    const { ctx } = ctxFor('POST', '/api/v1/namespaces/ns/pods', { body: [Buffer.from('{"a":'), Buffer.from('1}')] });
    await withBodyLimit(10)(ctx, async () => {
      expect((await ctx.body()).toString()).toBe('{"a":1}');
      expect((await ctx.body()).toString()).toBe('{"a":1}');
    });
  });
  it('0 means no limit', async () => {
    const body = await readBody(Readable.from([Buffer.alloc(5000)]) as unknown as IncomingMessage, 0, new AbortController().signal);
    expect(body.length).toBe(5000);
  });
  it('reading stops when the request is aborted', async () => {
    const req = new Readable({ read() {} });
    const ac = new AbortController();
    const p = readBody(req as unknown as IncomingMessage, 0, ac.signal);
    ac.abort(new Error('gone'));
    await expect(p).rejects.toThrow('gone');
  });
});

describe('routes', () => {
  it('/healthz, /livez, /readyz answer ok', async () => {
    for (const path of ['/healthz', '/livez', '/readyz']) {
      const { ctx, res } = ctxFor('GET', path);
      await routes(notFoundHandler)(ctx);
      expect([res.statusCode, res.body]).toEqual([200, 'ok']);
    }
  });
  it('/version is JSON with the release and Node version', async () => {
    const { ctx, res } = ctxFor('GET', '/version', { user: admin });
    await routes(notFoundHandler)(ctx);
    expect(JSON.parse(res.body)).toMatchObject({ major: '1', minor: '28', gitVersion: expect.stringMatching(/^v1\.28\.0-platform\./), goVersion: process.version, compiler: 'node' });
  });
  it('everything else goes to the handler as an ApiRequest', async () => {
    const { ctx } = ctxFor('GET', '/api/v1/namespaces/ns/pods/p', { user: admin });
    let got: unknown;
    await routes(async (req) => {
      got = { verb: req.info.verb, name: req.info.name, user: req.user.name, signal: req.signal === ctx.abort.signal };
    })(ctx);
    expect(got).toEqual({ verb: 'get', name: 'p', user: 'admin', signal: true });
  });
  it('the default handler answers 404', async () => {
    const { ctx } = ctxFor('GET', '/api/v1/pods', { user: admin });
    await expect(routes(notFoundHandler)(ctx)).rejects.toMatchObject({ code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' });
  });
});
