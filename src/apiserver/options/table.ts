// THE option table of platform-apiserver: every flag once, with its value
// kind (shared with the agent's table, src/config/kinds.ts), default, help
// section and text. commander (parse.ts), validation (validate.ts), --help
// (help.ts) and docs/apiserver-options.md (gen-docs.ts) are generated from it.
// Names and defaults are kube-apiserver's where it has the option.
import * as k from '../../config/kinds.js';
import type { Kind } from '../../config/kinds.js';
import { ValueError } from '../../errors.js';

export type ApiSection = 'serving' | 'authn' | 'storage' | 'limits' | 'features' | 'misc';

/** Help sections, in the order `--help` and the docs show them. */
export const API_SECTIONS: ReadonlyArray<{ id: ApiSection; title: string }> = [
  { id: 'serving', title: 'Secure serving' },
  { id: 'authn', title: 'Authentication' },
  { id: 'storage', title: 'Storage' },
  { id: 'limits', title: 'Requests and limits' },
  { id: 'features', title: 'Feature gates and controllers' },
  { id: 'misc', title: 'Logging and misc' },
];

export interface ServerOpt<T> {
  readonly kind: Kind<T>;
  /** Long flag name without dashes. */
  readonly flag: string;
  readonly short?: string;
  readonly default: NoInfer<T>;
  readonly section: ApiSection;
  readonly help: string;
  /** Default as --help shows it, when not the plain value. */
  readonly defaultText?: string;
  /** The flag exists here but not in kube-apiserver (or not as a flag there): said in the docs. */
  readonly note?: string;
}

const o = <T>(init: ServerOpt<T>): ServerOpt<T> => init;

/** The signers --csr-signing can run, in their canonical order. */
export const CSR_SIGNERS = ['node-client', 'agent-serving'] as const;

/** Which signers a --csr-signing value runs ('off', or a list of CSR_SIGNERS). Pure. */
export function csrSigners(value: string): { nodeClient: boolean; agentServing: boolean } {
  const items = value.split(',').map((x) => x.trim());
  return { nodeClient: items.includes('node-client'), agentServing: items.includes('agent-serving') };
}

/** --csr-signing: 'off' or a list of signers, kept as canonical text ('node-client,agent-serving') so a plain 'node-client' reads as before. */
function canonicalCsrSigning(text: string): string {
  const items = [...new Set(text.split(',').map((x) => x.trim()).filter((x) => x !== ''))];
  const bad = items.filter((x) => x !== 'off' && !(CSR_SIGNERS as readonly string[]).includes(x));
  if (bad.length > 0 || items.length === 0 || (items.includes('off') && items.length > 1)) {
    throw new ValueError(`invalid value "${text}": must be "off" or a comma-separated list of ${CSR_SIGNERS.map((v) => `"${v}"`).join(', ')}`);
  }
  return items.includes('off') ? 'off' : CSR_SIGNERS.filter((x) => items.includes(x)).join(',');
}

const csrSigningKind: Kind<string> = {
  ...k.string,
  parseFlag: (t) => canonicalCsrSigning(t),
  file: (z) =>
    z.string().transform((s, ctx) => {
      try {
        return canonicalCsrSigning(s);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: (e as Error).message });
        return z.NEVER;
      }
    }),
};
const mins = (m: number): number => m * 60_000;

/** `--help` and `--version` (no value kept in the configuration). */
export const helpFlag = o({ kind: k.bool, flag: 'help', short: 'h', default: false, section: 'misc', help: 'help for platform-apiserver' });
export const versionFlag = o({ kind: k.bool, flag: 'version', default: false, section: 'misc', help: 'Print version information and quit' });

export const apiServerOptions = {
  bindAddress: o({ kind: k.string, flag: 'bind-address', default: '0.0.0.0', section: 'serving', help: "The IP address on which to listen for the --secure-port port. The associated interface(s) must be reachable by the rest of the cluster, and by CLI/web clients. If blank or an unspecified address (0.0.0.0 or ::), all interfaces will be used." }),
  securePort: o({ kind: k.int32, flag: 'secure-port', default: 6443, section: 'serving', help: 'The port on which to serve HTTPS with authentication and authorization. It cannot be switched off with 0 (there is no insecure port); 0 in tests picks a free port.' }),
  tlsCertFile: o({ kind: k.string, flag: 'tls-cert-file', default: '', section: 'serving', help: 'File containing the default x509 Certificate for HTTPS. (CA cert, if any, concatenated after server cert). If HTTPS serving is enabled, and --tls-cert-file and --tls-private-key-file are not provided, a self-signed certificate and key are generated for the public address and saved to the directory specified by --cert-dir.' }),
  tlsPrivateKeyFile: o({ kind: k.string, flag: 'tls-private-key-file', default: '', section: 'serving', help: 'File containing the default x509 private key matching --tls-cert-file.' }),
  certDir: o({ kind: k.string, flag: 'cert-dir', default: '/var/run/platform', section: 'serving', help: 'The directory where the TLS certs are located. If --tls-cert-file and --tls-private-key-file are provided, this flag will be ignored. The generated CA (apiserver-ca.crt) and serving certificate (apiserver.crt) are reused on the next start while they are valid.' }),
  clientCAFile: o({ kind: k.string, flag: 'client-ca-file', default: '', section: 'authn', help: 'If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate, and the groups of its Organization fields.' }),
  tokenAuthFile: o({ kind: k.string, flag: 'token-auth-file', default: '', section: 'authn', help: 'If set, the file that will be used to secure the secure port of the API server via token authentication. Each line is token,user,uid,"group1,group2" (CSV).' }),
  serviceAccountKeyFiles: o({ kind: k.strings, flag: 'service-account-key-file', default: [], section: 'authn', help: 'File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. The specified file can contain multiple keys, and the flag can be specified multiple times with different files. If unspecified, --service-account-signing-key-file is used.' }),
  serviceAccountSigningKeyFile: o({ kind: k.string, flag: 'service-account-signing-key-file', default: '', section: 'authn', help: 'Path to the file that contains the current private key of the service account token issuer. The issuer will sign issued ID tokens with this private key.' }),
  serviceAccountIssuer: o({ kind: k.strings, flag: 'service-account-issuer', default: [], section: 'authn', help: 'Identifier of the service account token issuer. The issuer will assert this identifier in "iss" claim of issued tokens. This value is a string or URI. When given more than once, the first is used to issue tokens and all are accepted.' }),
  apiAudiences: o({ kind: k.strings, flag: 'api-audiences', default: [], section: 'authn', help: 'Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences. If unset, the first --service-account-issuer is used.' }),
  serviceAccountMaxTokenExpiration: o({ kind: k.duration, flag: 'service-account-max-token-expiration', default: 0, section: 'authn', help: 'The maximum validity duration of a token created by the service account token issuer. If an otherwise valid TokenRequest with a validity duration larger than this value is requested, a token will be issued with a validity duration of this value. 0 means no maximum.' }),
  adminPlatformconfig: o({ kind: k.string, flag: 'admin-platformconfig', default: '', section: 'authn', note: 'platform-apiserver only', help: 'If set, on start the server makes a random admin bearer token (user "admin", group "system:masters"), held in memory only, and writes a platformconfig (kubeconfig format) with the server URL, its CA and that token to this file (mode 0600), so the agent, kubectl and tests can use the server at once. A new token is made on every start.' }),
  etcdServers: o({ kind: k.strings, flag: 'etcd-servers', default: [], section: 'storage', help: 'List of etcd servers to connect with (scheme://ip:port), comma separated. Empty: objects are kept in memory and lost on exit.' }),
  etcdPrefix: o({ kind: k.string, flag: 'etcd-prefix', default: '/registry', section: 'storage', help: 'The prefix to prepend to all resource paths in etcd.' }),
  etcdCompactionInterval: o({ kind: k.duration, flag: 'etcd-compaction-interval', default: mins(5), section: 'storage', help: 'The interval of compaction requests. History older than this is compacted: watches and lists at older resource versions get 410 Gone. In memory it is the retained watch history window.' }),
  continueTokenLifetime: o({ kind: k.duration, flag: 'continue-token-lifetime', default: mins(5), section: 'storage', note: 'platform-apiserver only (fixed at 5m upstream)', help: 'How long a continue token of a paged list stays valid; an older token gets 410 Gone.' }),
  minRequestTimeout: o({ kind: k.int32, flag: 'min-request-timeout', default: 1800, section: 'limits', help: 'An optional field indicating the minimum number of seconds a handler must keep a request open before timing it out. Currently only honored by the watch request handler, which picks a randomized value above this number as the connection timeout, to spread out load.' }),
  requestTimeout: o({ kind: k.duration, flag: 'request-timeout', default: mins(1), section: 'limits', help: 'An optional field indicating the duration a handler must keep a request open before timing it out. This is the default request timeout for requests but may be overridden by flags such as --min-request-timeout for specific types of requests (watches).' }),
  maxResourceWriteBytes: o({ kind: k.int64, flag: 'max-resource-write-bytes', default: 3 * 1024 * 1024, section: 'limits', note: 'kube-apiserver: the MaxRequestBodyBytes setting (3 MiB), not exposed as a flag there', help: 'The limit on the request body size that will be accepted and decoded, in bytes. A larger body gets 413 RequestEntityTooLarge. 0 means no limit.' }),
  featureGates: o({ kind: k.mapStringBool, flag: 'feature-gates', default: {}, section: 'features', help: 'A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:' }),
  csrSigning: o({ kind: csrSigningKind, flag: 'csr-signing', default: 'off', section: 'features', note: 'platform-apiserver only (kube-controller-manager\'s csrapproving and csrsigning controllers)', help: 'Signers the server runs for CertificateSigningRequests: off, or a comma-separated list of node-client and agent-serving. node-client (signer platform.io/platform-apiserver-client-agent): the server approves a node client request whose requester may create certificatesigningrequests/nodeclient (or /selfnodeclient for its own node), signs approved ones with the cluster signing CA, trusts that CA for client certificates, and binds the node bootstrap roles to the groups system:bootstrappers and system:nodes. agent-serving (signer platform.io/agent-serving, the agents\' --rotate-server-certificates): signs requests an administrator approved (never auto-approved) when the requester is the node the subject names, with DNS and IP subjectAltNames only.' }),
  controllers: o({ kind: k.strings, flag: 'controllers', default: ['*'], section: 'features', note: 'kube-controller-manager\'s flag; the CSR controllers follow --csr-signing', help: 'A list of controllers to enable. \'*\' enables all on-by-default controllers, \'foo\' enables the controller named \'foo\', \'-foo\' disables the controller named \'foo\'. All controllers: root-ca-cert-publisher (the platform-root-ca.crt ConfigMap in every namespace).' }),
  clusterSigningCertFile: o({ kind: k.string, flag: 'cluster-signing-cert-file', default: '', section: 'features', note: 'kube-controller-manager\'s flag', help: 'Filename containing a PEM-encoded X509 CA certificate used to issue cluster-scoped certificates (--csr-signing). If empty, the CA generated into --cert-dir is used; required when --tls-cert-file is given.' }),
  clusterSigningKeyFile: o({ kind: k.string, flag: 'cluster-signing-key-file', default: '', section: 'features', note: 'kube-controller-manager\'s flag', help: 'Filename containing a PEM-encoded RSA or ECDSA private key used to sign cluster-scoped certificates (--csr-signing). Given with --cluster-signing-cert-file.' }),
  clusterSigningDuration: o({ kind: k.duration, flag: 'cluster-signing-duration', default: 8760 * 60 * 60_000, section: 'features', note: 'kube-controller-manager\'s flag', help: 'The max length of duration signed certificates will be given. Individual CSRs may request shorter certs by setting spec.expirationSeconds.' }),
  verbosity: o({ kind: k.level, flag: 'v', short: 'v', default: 0, section: 'misc', help: 'number for the log level verbosity' }),
  loggingFormat: o({ kind: k.oneOf(['text', 'json']), flag: 'logging-format', default: 'text', section: 'misc', help: 'Sets the log format. Permitted formats: "json", "text".' }),
};

type ValueOfOpt<O> = O extends ServerOpt<infer T> ? T : never;

/** The server's configuration: one field per option of the table. */
export type ApiServerConfig = { -readonly [K in keyof typeof apiServerOptions]: ValueOfOpt<(typeof apiServerOptions)[K]> };

export type OptionKey = keyof typeof apiServerOptions;

/** Every option with its key, in table order (help and docs sort within sections). */
export function optionEntries(): Array<{ key: OptionKey | 'help' | 'version'; opt: ServerOpt<unknown> }> {
  const rows = Object.entries(apiServerOptions).map(([key, opt]) => ({ key: key as OptionKey, opt: opt as ServerOpt<unknown> }));
  return [...rows, { key: 'help', opt: helpFlag as ServerOpt<unknown> }, { key: 'version', opt: versionFlag as ServerOpt<unknown> }];
}

/** The configuration with every default (fresh copies: callers may mutate it). */
export function defaultConfig(): ApiServerConfig {
  const out: Record<string, unknown> = {};
  for (const [key, opt] of Object.entries(apiServerOptions)) out[key] = structuredClone(opt.default);
  return out as ApiServerConfig;
}
