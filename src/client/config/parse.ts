// The pure half of loading a platformconfig (the kubeconfig format, wire
// notes (f)): its text → a ConfigPlan naming every value and every file still
// to read, each with the field it came from. No I/O here (index.ts reads the
// files), so every rule is a table test. Errors are ClientConfigError naming
// the file and the field (`users[0].user.client-key`).
import { dirname, isAbsolute, resolve } from 'node:path';
import { YAMLParseError, parse } from 'yaml';
import { ClientConfigError } from '../errors.js';

/** PEM material given inline (already base64-decoded) or as a file still to read. */
export type Material = { readonly field: string; readonly pem: string } | { readonly field: string; readonly path: string };

export interface ConfigPlan {
  readonly server: string;
  readonly ca: Material | undefined;
  readonly insecureSkipTlsVerify: boolean;
  readonly tlsServerName: string | undefined;
  readonly clientCert: { readonly cert: Material; readonly key: Material } | undefined;
  readonly token: string | undefined;
  /** Absolute path. */
  readonly tokenFile: { readonly field: string; readonly path: string } | undefined;
  readonly namespace: string;
  readonly source: { readonly file: string; readonly context: string };
}

type Obj = Record<string, unknown>;

const join = (at: string, key: string): string => (at === '' ? key : `${at}.${key}`);

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Ctx {
  readonly file: string;
  fail(field: string, message: string, cause?: unknown): never;
}

function str(c: Ctx, o: Obj, key: string, field: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') c.fail(join(field, key), `must be a string, not ${typeof v}`);
  return v === '' ? undefined : v;
}

function bool(c: Ctx, o: Obj, key: string, field: string): boolean {
  const v = o[key];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') c.fail(join(field, key), `must be true or false, not ${JSON.stringify(v)}`);
  return v;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The PEM text of a `*-data` value; a value that is not base64 of PEM is an error naming the field. */
function decodeData(c: Ctx, value: string, field: string): string {
  const compact = value.replace(/\s+/g, '');
  if (!BASE64.test(compact) || compact.length % 4 === 1) c.fail(field, 'is not valid base64');
  const text = Buffer.from(compact, 'base64').toString('utf8');
  if (!text.includes('-----BEGIN ')) c.fail(field, 'does not hold PEM data (base64 of a "-----BEGIN ..." block was expected)');
  return text;
}

/** The PEM block kind a material must hold, checked once its text is known (inline or read). */
export function checkPem(file: string, field: string, text: string, kind: 'CERTIFICATE' | 'PRIVATE KEY'): string {
  const ok = kind === 'CERTIFICATE' ? text.includes('-----BEGIN CERTIFICATE-----') : /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text);
  if (!ok) throw new ClientConfigError(file, field, `holds no PEM ${kind} block`);
  return text;
}

/** The entry named `name` of a `[{name, <key>: {...}}]` list, with its index, or undefined. */
function named(c: Ctx, doc: Obj, list: string, key: string, name: string): { at: string; body: Obj } | undefined {
  const v = doc[list];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) c.fail(list, 'must be a list');
  for (const [i, e] of v.entries()) {
    if (!isObj(e) || e['name'] !== name) continue;
    const body = e[key] ?? {};
    if (!isObj(body)) c.fail(`${list}[${i}].${key}`, 'must be a mapping');
    return { at: `${list}[${i}].${key}`, body };
  }
  return undefined;
}

function material(c: Ctx, o: Obj, at: string, key: string, dir: string): Material | undefined {
  const data = str(c, o, `${key}-data`, at);
  // `*-data` wins over the path, as client-go (which only warns when both are set).
  if (data !== undefined) return { field: `${at}.${key}-data`, pem: decodeData(c, data, `${at}.${key}-data`) };
  const path = str(c, o, key, at);
  return path === undefined ? undefined : { field: `${at}.${key}`, path: isAbsolute(path) ? path : resolve(dir, path) };
}

function parseServer(c: Ctx, raw: string | undefined, field: string): string {
  if (raw === undefined) c.fail(field, 'no server is set (an https:// URL is required)');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    c.fail(field, `${JSON.stringify(raw)} is not a URL`);
  }
  if (url.protocol !== 'https:') c.fail(field, `${JSON.stringify(raw)} must be an https:// URL`);
  return raw.replace(/\/+$/, '');
}

function parseCluster(c: Ctx, doc: Obj, name: string, field: string, dir: string): Pick<ConfigPlan, 'server' | 'ca' | 'insecureSkipTlsVerify' | 'tlsServerName'> {
  const entry = named(c, doc, 'clusters', 'cluster', name);
  if (entry === undefined) c.fail(field, `cluster ${JSON.stringify(name)} not found in clusters`);
  const { at, body } = entry;
  for (const k of ['proxy-url']) if (body[k] !== undefined) c.fail(`${at}.${k}`, 'is not supported by this client');
  const server = parseServer(c, str(c, body, 'server', at), `${at}.server`);
  const ca = material(c, body, at, 'certificate-authority', dir);
  const insecureSkipTlsVerify = bool(c, body, 'insecure-skip-tls-verify', at);
  if (insecureSkipTlsVerify && ca !== undefined) c.fail(`${at}.insecure-skip-tls-verify`, 'specifying a root certificates file with the insecure flag is not allowed');
  return { server, ca, insecureSkipTlsVerify, tlsServerName: str(c, body, 'tls-server-name', at) };
}

function parseUser(c: Ctx, doc: Obj, name: string, field: string, dir: string): Pick<ConfigPlan, 'clientCert' | 'token' | 'tokenFile'> {
  const entry = named(c, doc, 'users', 'user', name);
  if (entry === undefined) c.fail(field, `user ${JSON.stringify(name)} not found in users`);
  const { at, body } = entry;
  const token = str(c, body, 'token', at);
  const tokenPath = str(c, body, 'tokenFile', at);
  const basic = body['username'] !== undefined || body['password'] !== undefined;
  // client-go's rule: a client certificate may go with any one of these; two of them may not.
  const methods = [...(token !== undefined || tokenPath !== undefined ? ['token'] : []), ...(basic ? ['basicAuth'] : []), ...(body['exec'] !== undefined ? ['exec'] : []), ...(body['auth-provider'] !== undefined ? ['authProvider'] : [])];
  if (methods.length > 1) c.fail(at, `more than one authentication method found for ${name}; found [${methods.join(' ')}], only one is allowed`);
  if (basic) c.fail(`${at}.${body['username'] !== undefined ? 'username' : 'password'}`, 'basic authentication (username/password) is not supported by this client; use a client certificate or a token');
  if (body['exec'] !== undefined) c.fail(`${at}.exec`, 'exec credential plugins are not supported by this client; use a client certificate or a token');
  if (body['auth-provider'] !== undefined) c.fail(`${at}.auth-provider`, 'auth-provider plugins are not supported by this client; use a client certificate or a token');
  for (const k of ['as', 'as-uid', 'as-groups', 'as-user-extra']) if (body[k] !== undefined) c.fail(`${at}.${k}`, 'impersonation is not supported by this client');
  const cert = material(c, body, at, 'client-certificate', dir);
  const key = material(c, body, at, 'client-key', dir);
  if (cert !== undefined && key === undefined) c.fail(at, `client-key-data or client-key must be specified for ${name} to use the clientCert authentication method`);
  if (key !== undefined && cert === undefined) c.fail(at, `client-certificate-data or client-certificate must be specified for ${name} to use the clientCert authentication method`);
  return {
    clientCert: cert !== undefined && key !== undefined ? { cert, key } : undefined,
    token,
    tokenFile: tokenPath === undefined ? undefined : { field: `${at}.tokenFile`, path: isAbsolute(tokenPath) ? tokenPath : resolve(dirname(c.file), tokenPath) },
  };
}

function parseDocument(c: Ctx, text: string): Obj {
  let doc: unknown;
  try {
    // logLevel 'error': YAML warnings (unknown tags) are not the process's business; errors still throw.
    doc = parse(text, { logLevel: 'error' });
  } catch (e) {
    c.fail('', `is not valid YAML: ${e instanceof YAMLParseError ? e.message.split('\n')[0] : String(e)}`, e);
  }
  if (doc === undefined || doc === null) c.fail('', 'is empty (a platformconfig with kind Config was expected)');
  if (!isObj(doc)) c.fail('', 'is not a platformconfig: a mapping with kind Config was expected');
  if (doc['kind'] !== undefined && doc['kind'] !== 'Config') c.fail('kind', `is ${JSON.stringify(doc['kind'])}, not "Config"`);
  if (doc['apiVersion'] !== undefined && doc['apiVersion'] !== 'v1') c.fail('apiVersion', `is ${JSON.stringify(doc['apiVersion'])}, not "v1"`);
  return doc;
}

/**
 * The plan of `text`, the contents of platformconfig `file` (absolute; its
 * directory anchors relative paths): the current context (or `opts.context`),
 * its cluster and user. Pure; throws ClientConfigError.
 */
export function parsePlatformConfig(text: string, file: string, opts: { context?: string } = {}): ConfigPlan {
  const c: Ctx = {
    file,
    fail: (field, message, cause) => {
      throw new ClientConfigError(file, field, message, cause);
    },
  };
  const doc = parseDocument(c, text);
  const dir = dirname(file);
  const contextName = opts.context ?? str(c, doc, 'current-context', '');
  if (contextName === undefined || contextName === '') c.fail('current-context', 'no current context is set and none was asked for');
  const ctxField = opts.context === undefined ? 'current-context' : 'contexts';
  const ctx = named(c, doc, 'contexts', 'context', contextName);
  if (ctx === undefined) c.fail(ctxField, `context ${JSON.stringify(contextName)} not found in contexts`);
  const clusterName = str(c, ctx.body, 'cluster', ctx.at);
  if (clusterName === undefined) c.fail(`${ctx.at}.cluster`, 'no cluster is set');
  const userName = str(c, ctx.body, 'user', ctx.at);
  const cluster = parseCluster(c, doc, clusterName, `${ctx.at}.cluster`, dir);
  const user = userName === undefined ? { clientCert: undefined, token: undefined, tokenFile: undefined } : parseUser(c, doc, userName, `${ctx.at}.user`, dir);
  return { ...cluster, ...user, namespace: str(c, ctx.body, 'namespace', ctx.at) ?? 'default', source: { file, context: contextName } };
}
