import { describe, expect, it } from 'vitest';
import { apiServerDocStale, renderApiServerOptionsDoc } from '../../../../src/apiserver/options/gen-docs.js';
import { controllerEnabled } from '../../../../src/apiserver/options/validate.js';
import { apiServerOptions, defaultConfig, parseCommandLine, renderApiServerHelp, resolveGates, validateConfig } from '../../../../src/apiserver/options.js';

describe('the option table', () => {
  it("has kube-apiserver's defaults", () => {
    const c = defaultConfig();
    expect(c).toMatchObject({
      bindAddress: '0.0.0.0',
      securePort: 6443,
      certDir: '/var/run/platform',
      etcdServers: [],
      etcdPrefix: '/registry',
      etcdCompactionInterval: 300_000,
      continueTokenLifetime: 300_000,
      minRequestTimeout: 1800,
      requestTimeout: 60_000,
      maxResourceWriteBytes: 3_145_728,
      csrSigning: 'off',
      verbosity: 0,
      loggingFormat: 'text',
    });
    expect(resolveGates({})).toEqual({ APIListChunking: true, APIResponseCompression: true, ClusterTrustBundle: false, WatchList: false });
  });
  it('docs/apiserver-options.md is current (npm run docs rewrites it)', () => {
    expect(apiServerDocStale()).toBe(false);
  });
  it('--help and the docs name every flag once', () => {
    const help = renderApiServerHelp();
    const doc = renderApiServerOptionsDoc();
    for (const opt of Object.values(apiServerOptions)) {
      expect.soft(help.split("\n").filter((l) => new RegExp(`^  (-., |    )--${opt.flag}( |$)`).test(l)).length, opt.flag).toBe(1);
      expect.soft(doc.split('\n').filter((l) => l.includes(`\`--${opt.flag}\` |`)).length, opt.flag).toBe(1);
    }
    expect(help).toContain('WatchList=true|false (ALPHA - default=false)');
  });
});

describe('parseCommandLine', () => {
  it('reads pflag spellings: --a=b, --a b, --a_b, -v=4, repeated list flags', () => {
    const p = parseCommandLine(['--secure-port=0', '--bind-address', '127.0.0.1', '--cert_dir=/tmp/x', '-v=4', '--service-account-key-file=a.pem', '--service-account-key-file', 'b.pem', '--feature-gates=WatchList=true', '--request-timeout=30s']);
    expect(p.config).toMatchObject({ securePort: 0, bindAddress: '127.0.0.1', certDir: '/tmp/x', verbosity: 4, serviceAccountKeyFiles: ['a.pem', 'b.pem'], featureGates: { WatchList: true }, requestTimeout: 30_000 });
    expect([...p.given].sort()).toEqual(['bindAddress', 'certDir', 'featureGates', 'requestTimeout', 'securePort', 'serviceAccountKeyFiles', 'verbosity']);
    expect(p.help).toBe(false);
  });
  it('--help, -h and --version', () => {
    expect(parseCommandLine(['--help']).help).toBe(true);
    expect(parseCommandLine(['-h']).help).toBe(true);
    expect(parseCommandLine(['--version']).version).toBe(true);
  });
  it.each([
    [['--secure-port=x'], /invalid argument "x" for "--secure-port" flag/],
    [['--request-timeout=5'], /invalid argument "5" for "--request-timeout" flag/],
    [['--logging-format=xml'], /"--logging-format"/],
    [['--no-such-flag'], /unknown flag: --no-such-flag/],
    [['stray'], /unexpected argument "stray"/],
    [['--cert-dir'], /flag needs an argument: --cert-dir/],
  ])('%j → one error naming the flag', (argv, want) => {
    expect(() => parseCommandLine(argv)).toThrow(want);
  });
});

describe('validateConfig', () => {
  const problems = (argv: string[]): string[] => validateConfig(parseCommandLine(argv).config).problems.map((p) => p.message);
  it('accepts the defaults', () => {
    expect(problems([])).toEqual([]);
  });
  it('accepts --csr-signing=node-client with the generated CA or with signing files', () => {
    expect(problems(['--csr-signing=node-client'])).toEqual([]);
    expect(problems(['--csr-signing=node-client', '--tls-cert-file=a.crt', '--tls-private-key-file=a.key', '--cluster-signing-cert-file=ca.crt', '--cluster-signing-key-file=ca.key'])).toEqual([]);
  });
  it.each([
    [['--bind-address=localhost'], '--bind-address: "localhost" is not a valid IP address'],
    [['--secure-port=70000'], '--secure-port: 70000 must be between 1 and 65535, inclusive (0 picks a free port)'],
    [['--tls-cert-file=a.crt'], '--tls-private-key-file: --tls-cert-file and --tls-private-key-file must be given together'],
    [['--min-request-timeout=-1'], '--min-request-timeout: can not be negative value'],
    [['--request-timeout=0s'], '--request-timeout: must be greater than 0'],
    [['--max-resource-write-bytes=-1'], '--max-resource-write-bytes: can not be negative value'],
    [['--etcd-compaction-interval=0s'], '--etcd-compaction-interval: must be greater than 0'],
    [['--etcd-servers=127.0.0.1:2379'], '--etcd-servers: "127.0.0.1:2379" is not of the form scheme://host:port (scheme http or https)'],
    [['--etcd-prefix=registry'], '--etcd-prefix: "registry" must be an absolute key prefix such as /registry'],
    [['--service-account-signing-key-file=sa.key'], '--service-account-issuer: is required when --service-account-signing-key-file is given'],
    [['--feature-gates=NoSuchGate=true'], 'invalid argument for "--feature-gates" flag: unrecognized feature gate: NoSuchGate'],
    [['--csr-signing=node-client', '--tls-cert-file=a.crt', '--tls-private-key-file=a.key'], '--cluster-signing-cert-file: is required with --csr-signing=node-client when --tls-cert-file is given (there is no generated CA in --cert-dir to sign with)'],
    [['--cluster-signing-cert-file=ca.crt'], '--cluster-signing-key-file: --cluster-signing-cert-file and --cluster-signing-key-file must be given together'],
    [['--cluster-signing-duration=0s'], '--cluster-signing-duration: must be greater than 0'],
  ])('%j', (argv, want) => {
    expect(problems(argv)).toEqual([want]);
  });
  it.each<[string[], boolean]>([
    [['*'], true],
    [['*', '-root-ca-cert-publisher'], false],
    [['root-ca-cert-publisher'], true],
    [[], false],
  ])('--controllers=%j runs the root-CA publisher: %s', (list, want) => expect(controllerEnabled(list, 'root-ca-cert-publisher')).toBe(want));
  it('rejects an unknown controller', () => {
    expect(problems(['--controllers=*,-nope'])).toEqual(['--controllers: "-nope" is not a known controller (known: root-ca-cert-publisher)']);
  });
  it('reports every problem at once and still returns usable gates', () => {
    const v = validateConfig(parseCommandLine(['--feature-gates=Bogus=true,WatchList=true', '--request-timeout=0s']).config);
    expect(v.problems).toHaveLength(2);
    expect(v.gates.WatchList).toBe(false);
  });
});
