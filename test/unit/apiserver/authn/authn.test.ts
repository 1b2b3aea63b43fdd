import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ADMIN_USER, renderPlatformconfig, serverUrl } from '../../../../src/apiserver/authn/admin.js';
import { authenticate, bearerToken } from '../../../../src/apiserver/authn/authenticate.js';
import { StaticTokenAuthenticator } from '../../../../src/apiserver/authn/static-token.js';
import { parseTokenFile, splitCsvLine } from '../../../../src/apiserver/authn/token-file.js';
import type { TokenAuthenticator } from '../../../../src/apiserver/authn/types.js';
import type { UserInfo } from '../../../../src/apiserver/types.js';

describe('splitCsvLine', () => {
  it.each<[string, string[] | { error: string }]>([
    ['a,b,c', ['a', 'b', 'c']],
    ['a,b,c,"g1,g2"', ['a', 'b', 'c', 'g1,g2']],
    ['a,"x""y",c', ['a', 'x"y', 'c']],
    ['a,b,', ['a', 'b', '']],
    ['a', ['a']],
    ['a,"b', { error: 'extraneous or missing " in quoted-field' }],
    ['a,"b"x', { error: 'extraneous or missing " in quoted-field' }],
    ['a,b"c', { error: 'bare " in non-quoted-field' }],
  ])('%s', (line, want) => {
    expect(splitCsvLine(line)).toEqual(want);
  });
});

describe('parseTokenFile', () => {
  it('reads token,user,uid,"groups" lines, skipping blank ones', () => {
    const r = parseTokenFile('t1,alice,u1\n\nt2,bob,u2,"dev, ops"\nt3,carol,u3,single\n', '/etc/tokens.csv');
    expect(Object.fromEntries(r.tokens)).toEqual({
      t1: { name: 'alice', uid: 'u1', groups: [], extra: {} },
      t2: { name: 'bob', uid: 'u2', groups: ['dev', 'ops'], extra: {} },
      t3: { name: 'carol', uid: 'u3', groups: ['single'], extra: {} },
    });
    expect(r.warnings).toEqual([]);
  });
  it('a duplicate token: the later line wins, with a warning', () => {
    const r = parseTokenFile('t1,alice,u1\nt1,bob,u2\n', 'f');
    expect(r.tokens.get('t1')?.name).toBe('bob');
    expect(r.warnings).toEqual(["duplicate token has been found in token file 'f', record number '2'"]);
  });
  it.each([
    ['t1,alice\n', 'line 1: must have at least 3 columns (token, user name, user uid), found 2'],
    ['t1,alice,u1\n,bob,u2\n', 'line 2: the token is empty'],
    ['t1,,u1\n', 'line 1: the user name is empty'],
    ['ok,a,b\nt1,alice,u1,"g1\n', 'line 2: extraneous or missing " in quoted-field'],
  ])('%j → error naming file and line', (text, want) => {
    expect(() => parseTokenFile(text, '/etc/tokens.csv')).toThrow(`--token-auth-file /etc/tokens.csv, ${want}`);
  });
});

describe('bearerToken', () => {
  it.each<[string | undefined, string | undefined]>([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['Basic abc', undefined],
    ['Bearer', undefined],
    ['Bearer  abc', undefined],
    [undefined, undefined],
  ])('%j', (h, want) => {
    expect(bearerToken(h)).toBe(want);
  });
});

describe('authenticate', () => {
  const signal = new AbortController().signal;
  const alice: UserInfo = { name: 'alice', uid: 'u1', groups: ['dev'], extra: {} };
  const statics = new StaticTokenAuthenticator(new Map([['t1', alice]]));
  const hook: TokenAuthenticator = { authenticate: (t) => Promise.resolve(t === 'jwt' ? { name: 'system:serviceaccount:ns:sa', uid: 'x', groups: ['system:serviceaccounts'], extra: {} } : undefined) };
  it('a verified client certificate: CN and O, plus system:authenticated; it wins over a token', async () => {
    const u = await authenticate({ authorization: 'Bearer t1', clientCertificate: { commonName: 'system:node:n1', organizations: ['system:nodes'] } }, [statics], signal);
    expect(u).toEqual({ name: 'system:node:n1', uid: '', groups: ['system:nodes', 'system:authenticated'], extra: {} });
  });
  it('a static token, then the hooks in order', async () => {
    expect(await authenticate({ authorization: 'Bearer t1', clientCertificate: undefined }, [statics, hook], signal)).toEqual({ ...alice, groups: ['dev', 'system:authenticated'] });
    expect((await authenticate({ authorization: 'Bearer jwt', clientCertificate: undefined }, [statics, hook], signal))?.name).toBe('system:serviceaccount:ns:sa');
  });
  it('no credentials or an unknown token: nobody (401, no anonymous user)', async () => {
    expect(await authenticate({ authorization: undefined, clientCertificate: undefined }, [statics, hook], signal)).toBeUndefined();
    expect(await authenticate({ authorization: 'Bearer nope', clientCertificate: undefined }, [statics, hook], signal)).toBeUndefined();
  });
  it('the admin token added at start', async () => {
    const s = new StaticTokenAuthenticator();
    s.add('adm', ADMIN_USER);
    expect((await authenticate({ authorization: 'Bearer adm', clientCertificate: undefined }, [s], signal))?.groups).toEqual(['system:masters', 'system:authenticated']);
  });
});

describe('platformconfig', () => {
  it.each([
    ['0.0.0.0', 6443, 'https://127.0.0.1:6443'],
    ['::', 6443, 'https://[::1]:6443'],
    ['10.0.0.1', 443, 'https://10.0.0.1:443'],
    ['fd00::1', 6443, 'https://[fd00::1]:6443'],
  ])('serverUrl(%s, %d)', (bind, port, want) => {
    expect(serverUrl(bind, port)).toBe(want);
  });
  it('is a kubeconfig with the server, the CA inline, the token and one current context', () => {
    const doc = parseYaml(renderPlatformconfig({ server: 'https://127.0.0.1:6443', caPem: 'PEM', token: 'tok' })) as Record<string, unknown>;
    expect(doc).toEqual({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'platform', cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': Buffer.from('PEM').toString('base64') } }],
      users: [{ name: 'admin', user: { token: 'tok' } }],
      contexts: [{ name: 'admin@platform', context: { cluster: 'platform', user: 'admin' } }],
      'current-context': 'admin@platform',
      preferences: {},
    });
  });
});
