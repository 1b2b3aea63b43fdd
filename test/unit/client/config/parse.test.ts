import { describe, expect, it } from 'vitest';
import { parsePlatformConfig } from '../../../../src/client/config/index.js';
import { ClientConfigError } from '../../../../src/client/errors.js';

const FILE = '/etc/platform/agent.conf';
const PEM_CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** A platformconfig with one context `c` → cluster `k`, user `u`; parts replace the defaults. */
function conf(p: { cluster?: string; user?: string; context?: string; top?: string } = {}): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: k',
    '  cluster:',
    ...(p.cluster ?? '    server: https://127.0.0.1:6443').split('\n'),
    'users:',
    '- name: u',
    '  user:',
    ...(p.user ?? '    token: abc').split('\n'),
    'contexts:',
    '- name: c',
    '  context:',
    ...(p.context ?? '    cluster: k\n    user: u').split('\n'),
    p.top ?? 'current-context: c',
    '',
  ].join('\n');
}

describe('parsePlatformConfig: what a valid file resolves to', () => {
  it.each([
    ['a token user, default namespace', conf(), { server: 'https://127.0.0.1:6443', token: 'abc', namespace: 'default', ca: undefined, insecureSkipTlsVerify: false }],
    ['a trailing slash is dropped', conf({ cluster: '    server: https://h:1/' }), { server: 'https://h:1' }],
    ['the context namespace', conf({ context: '    cluster: k\n    user: u\n    namespace: kube' }), { namespace: 'kube' }],
    ['CA data decoded', conf({ cluster: `    server: https://h:1\n    certificate-authority-data: ${b64(PEM_CERT)}` }), { ca: { field: 'clusters[0].cluster.certificate-authority-data', pem: PEM_CERT } }],
    ['CA path relative to the file', conf({ cluster: '    server: https://h:1\n    certificate-authority: pki/ca.crt' }), { ca: { field: 'clusters[0].cluster.certificate-authority', path: '/etc/platform/pki/ca.crt' } }],
    ['CA data wins over the path', conf({ cluster: `    server: https://h:1\n    certificate-authority: ca.crt\n    certificate-authority-data: ${b64(PEM_CERT)}` }), { ca: { field: 'clusters[0].cluster.certificate-authority-data', pem: PEM_CERT } }],
    ['insecure and server name', conf({ cluster: '    server: https://h:1\n    insecure-skip-tls-verify: true\n    tls-server-name: api.local' }), { insecureSkipTlsVerify: true, tlsServerName: 'api.local' }],
    ['token file relative to the file', conf({ user: '    tokenFile: token' }), { tokenFile: { field: 'users[0].user.tokenFile', path: '/etc/platform/token' }, token: undefined }],
    ['token and token file are one method', conf({ user: '    token: a\n    tokenFile: /t' }), { token: 'a', tokenFile: { field: 'users[0].user.tokenFile', path: '/t' } }],
    [
      'client certificate files',
      conf({ user: '    client-certificate: /pki/c.crt\n    client-key: c.key' }),
      { clientCert: { cert: { field: 'users[0].user.client-certificate', path: '/pki/c.crt' }, key: { field: 'users[0].user.client-key', path: '/etc/platform/c.key' } }, token: undefined },
    ],
    ['a certificate may go with a token (client-go)', conf({ user: `    token: t\n    client-certificate-data: ${b64(PEM_CERT)}\n    client-key: k` }), { token: 't' }],
    ['a context without a user', conf({ context: '    cluster: k' }), { token: undefined, clientCert: undefined }],
  ])('%s', (_name, text, expected) => {
    expect(parsePlatformConfig(text, FILE)).toMatchObject(expected);
  });

  it('opts.context picks another context than the current one', () => {
    const text = conf({ context: '    cluster: k\n    user: u\n- name: other\n  context:\n    cluster: k\n    namespace: n2' });
    expect(parsePlatformConfig(text, FILE, { context: 'other' })).toMatchObject({ namespace: 'n2', token: undefined, source: { file: FILE, context: 'other' } });
    expect(() => parsePlatformConfig(text, FILE, { context: 'nope' })).toThrow(/contexts: context "nope" not found/);
  });
});

describe('parsePlatformConfig: a file that cannot be used names the field', () => {
  it.each([
    ['not YAML', 'clusters: [', '', /is not valid YAML/],
    ['empty', '', '', /is empty/],
    ['not a mapping', '- a\n- b\n', '', /not a platformconfig/],
    ['another kind', 'kind: Pod\n', 'kind', /"Pod", not "Config"/],
    ['another apiVersion', 'apiVersion: v2\nkind: Config\n', 'apiVersion', /not "v1"/],
    ['no current context', conf({ top: '' }), 'current-context', /no current context/],
    ['unknown current context', conf({ top: 'current-context: nope' }), 'current-context', /context "nope" not found/],
    ['unknown cluster', conf({ context: '    cluster: nope\n    user: u' }), 'contexts[0].context.cluster', /cluster "nope" not found/],
    ['unknown user', conf({ context: '    cluster: k\n    user: nope' }), 'contexts[0].context.user', /user "nope" not found/],
    ['context without cluster', conf({ context: '    user: u' }), 'contexts[0].context.cluster', /no cluster/],
    ['server missing', conf({ cluster: '    insecure-skip-tls-verify: true' }), 'clusters[0].cluster.server', /no server/],
    ['server http', conf({ cluster: '    server: http://h:1' }), 'clusters[0].cluster.server', /must be an https:\/\/ URL/],
    ['server not a URL', conf({ cluster: '    server: "::"' }), 'clusters[0].cluster.server', /is not a URL/],
    ['server not a string', conf({ cluster: '    server: 42' }), 'clusters[0].cluster.server', /must be a string/],
    ['bad base64', conf({ cluster: '    server: https://h:1\n    certificate-authority-data: "%%%"' }), 'clusters[0].cluster.certificate-authority-data', /not valid base64/],
    ['base64 of no PEM', conf({ cluster: `    server: https://h:1\n    certificate-authority-data: ${b64('hello')}` }), 'clusters[0].cluster.certificate-authority-data', /does not hold PEM/],
    ['insecure with a CA', conf({ cluster: '    server: https://h:1\n    certificate-authority: ca\n    insecure-skip-tls-verify: true' }), 'clusters[0].cluster.insecure-skip-tls-verify', /insecure flag is not allowed/],
    ['insecure not a boolean', conf({ cluster: '    server: https://h:1\n    insecure-skip-tls-verify: "yes"' }), 'clusters[0].cluster.insecure-skip-tls-verify', /true or false/],
    ['certificate without key', conf({ user: '    client-certificate: c.crt' }), 'users[0].user', /client-key-data or client-key must be specified for u/],
    ['key without certificate', conf({ user: '    client-key: c.key' }), 'users[0].user', /client-certificate-data or client-certificate must be specified/],
    ['bad client key base64', conf({ user: '    client-certificate: c\n    client-key-data: "!!"' }), 'users[0].user.client-key-data', /not valid base64/],
    ['token and basic auth', conf({ user: '    token: t\n    username: a\n    password: b' }), 'users[0].user', /more than one authentication method found for u; found \[token basicAuth\], only one is allowed/],
    ['basic auth', conf({ user: '    username: a\n    password: b' }), 'users[0].user.username', /basic authentication .* is not supported/],
    ['exec', conf({ user: '    exec:\n      command: x' }), 'users[0].user.exec', /exec credential plugins are not supported/],
    ['auth-provider', conf({ user: '    auth-provider:\n      name: gcp' }), 'users[0].user.auth-provider', /auth-provider plugins are not supported/],
    ['impersonation', conf({ user: '    token: t\n    as: bob' }), 'users[0].user.as', /impersonation is not supported/],
    ['proxy', conf({ cluster: '    server: https://h:1\n    proxy-url: http://p' }), 'clusters[0].cluster.proxy-url', /not supported/],
    ['clusters not a list', 'kind: Config\nclusters: {}\ncontexts:\n- name: c\n  context:\n    cluster: k\ncurrent-context: c\n', 'clusters', /must be a list/],
  ])('%s', (_name, text, field, message) => {
    let err: unknown;
    try {
      parsePlatformConfig(text, FILE);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ClientConfigError);
    const e = err as ClientConfigError;
    expect({ file: e.file, field: e.field }).toEqual({ file: FILE, field });
    expect(e.message).toMatch(message);
    expect(e.message.startsWith(`${FILE}: `)).toBe(true);
  });
});
