import { describe, expect, it } from 'vitest';
import { ClientConnectionError } from '../../../../src/client/errors.js';
import { classifyConnectionError } from '../../../../src/client/transport/connection-errors.js';
import { clientRateLimits, createTransport, defaultUserAgent } from '../../../../src/client/transport/index.js';
import { tlsOptions } from '../../../../src/client/transport/dispatcher.js';
import type { ConnectionConfig } from '../../../../src/client/types.js';
import { testLogger } from '../../../helpers/test-logger.js';

const CONN: ConnectionConfig = { server: 'https://127.0.0.1:1', ca: undefined, insecureSkipTlsVerify: false, tlsServerName: undefined, clientCert: undefined, token: undefined, tokenFile: undefined, namespace: 'default', source: { file: '/f', context: 'c' } };

describe('clientRateLimits', () => {
  it.each([
    [{ platformApiQps: 0, platformApiBurst: 0, eventQps: 0, eventBurst: 0 }, { qps: 50, burst: 100, eventQps: 50, eventBurst: 100 }],
    [{ platformApiQps: 5, platformApiBurst: 10, eventQps: 0, eventBurst: 3 }, { qps: 5, burst: 10, eventQps: 50, eventBurst: 3 }],
    [{ platformApiQps: 0.5, platformApiBurst: 1, eventQps: 2, eventBurst: 0 }, { qps: 0.5, burst: 1, eventQps: 2, eventBurst: 100 }],
  ])('%j → %j', (input, out) => {
    expect(clientRateLimits(input)).toEqual(out);
  });
});

describe('classifyConnectionError', () => {
  const err = (code: string, msg = 'boom'): Error => Object.assign(new Error(msg), { code });
  it.each([
    [err('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1'), { sent: false, fatal: false, message: 'connect ECONNREFUSED 127.0.0.1:1' }],
    [err('ERR_CONNECT_TIMEOUT', 'no connection within 10000 ms'), { sent: false, fatal: false, message: 'no connection within 10000 ms (ERR_CONNECT_TIMEOUT)' }],
    [err('ECONNRESET', 'read ECONNRESET'), { sent: true, fatal: false, message: 'read ECONNRESET' }],
    [err('ECONNRESET', 'socket hang up'), { sent: true, fatal: false, message: 'socket hang up (ECONNRESET)' }],
    [err('SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate in certificate chain'), { sent: false, fatal: true, message: 'TLS: self-signed certificate in certificate chain (SELF_SIGNED_CERT_IN_CHAIN)' }],
    [err('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify'), { sent: false, fatal: true, message: 'TLS: unable to verify (UNABLE_TO_VERIFY_LEAF_SIGNATURE)' }],
    [err('ERR_TLS_CERT_ALTNAME_INVALID', 'bad name'), { sent: false, fatal: true, message: 'TLS: bad name (ERR_TLS_CERT_ALTNAME_INVALID)' }],
    [Object.assign(new Error('fetch failed'), { cause: err('ECONNREFUSED', 'x') }), { sent: false, fatal: false, message: 'fetch failed (ECONNREFUSED)' }],
    [err('ERR_INVALID_CHAR', 'Invalid character in header content ["x"]'), { sent: false, fatal: true, message: 'Invalid character in header content ["x"] (ERR_INVALID_CHAR)' }],
    [err('ERR_UNESCAPED_CHARACTERS', 'Request path contains unescaped characters'), { sent: false, fatal: true, message: 'Request path contains unescaped characters (ERR_UNESCAPED_CHARACTERS)' }],
    [new Error('who knows'), { sent: true, fatal: false, message: 'who knows' }],
  ])('%s', (e, out) => {
    expect(classifyConnectionError(e)).toEqual(out);
  });
});

describe('createTransport', () => {
  it('rejects rate limits that are not positive, naming them', () => {
    expect(() => createTransport(CONN, { qps: 0, burst: 1, eventQps: 1, eventBurst: 1, log: testLogger() })).toThrow(/qps\/burst: qps must be a positive number/);
  });

  it('after close(), requests reject with a ClientConnectionError naming the request', async () => {
    const t = createTransport(CONN, { qps: 1, burst: 1, eventQps: 1, eventBurst: 1, log: testLogger() });
    await t.close();
    await t.close();
    const err = await t.request({ method: 'GET', path: '/api' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientConnectionError);
    expect((err as Error).message).toBe('GET /api: the transport is closed');
  });

  it('a caller already aborted gets its own reason', async () => {
    const t = createTransport(CONN, { qps: 1, burst: 1, eventQps: 1, eventBurst: 1, log: testLogger() });
    const reason = new Error('mine');
    await expect(t.request({ method: 'GET', path: '/api', signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    await t.close();
  });

  it('a user agent like the kubelet\'s', () => {
    expect(defaultUserAgent()).toMatch(/^agent\/v\d+\.\d+\.\d+\S* \(\w+\/\w+\)$/);
  });

  it('TLS options carry what the connection says', () => {
    expect(tlsOptions({ ...CONN, ca: 'CA', tlsServerName: 'api', clientCert: { cert: 'C', key: 'K' } })).toEqual({ ca: 'CA', rejectUnauthorized: true, servername: 'api', cert: 'C', key: 'K' });
    expect(tlsOptions({ ...CONN, insecureSkipTlsVerify: true })).toEqual({ rejectUnauthorized: false });
  });
});
