// Loads a platformconfig (`--platformconfig`, the kubeconfig format) into the
// ConnectionConfig the transport dials with. Called once at start by the
// agent's composition root; reads the file and every file it references (CA,
// client certificate and key, token file) so that a bad path fails here,
// naming the field, rather than at the first request. Parsing is pure
// (parse.ts); this file only reads.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ClientConfigError } from '../errors.js';
import type { ConnectionConfig } from '../types.js';
import { checkPem, parsePlatformConfig, type ConfigPlan, type Material } from './parse.js';

export { parsePlatformConfig, checkPem, type ConfigPlan, type Material } from './parse.js';

/** Reads a file a platformconfig names; the seam the tests replace. */
export type ReadText = (path: string) => Promise<string>;

const readText: ReadText = (path) => readFile(path, 'utf8');

function describeReadError(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory';
  return e instanceof Error ? e.message : String(e);
}

async function readMaterial(file: string, m: Material, kind: 'CERTIFICATE' | 'PRIVATE KEY', read: ReadText): Promise<string> {
  if ('pem' in m) return checkPem(file, m.field, m.pem, kind);
  let text: string;
  try {
    text = await read(m.path);
  } catch (e) {
    throw new ClientConfigError(file, m.field, `cannot read ${m.path}: ${describeReadError(e)}`, e);
  }
  return checkPem(file, m.field, text, kind);
}

/** The ConnectionConfig of a plan, every referenced file read and checked. */
export async function materializeConfig(plan: ConfigPlan, read: ReadText = readText): Promise<ConnectionConfig> {
  const file = plan.source.file;
  const ca = plan.ca === undefined ? undefined : await readMaterial(file, plan.ca, 'CERTIFICATE', read);
  const clientCert = plan.clientCert === undefined ? undefined : { cert: await readMaterial(file, plan.clientCert.cert, 'CERTIFICATE', read), key: await readMaterial(file, plan.clientCert.key, 'PRIVATE KEY', read) };
  if (plan.tokenFile !== undefined) {
    // Read once now so a wrong path fails at start; the transport re-reads it as it changes.
    let token: string;
    try {
      token = (await read(plan.tokenFile.path)).trim();
    } catch (e) {
      throw new ClientConfigError(file, plan.tokenFile.field, `cannot read ${plan.tokenFile.path}: ${describeReadError(e)}`, e);
    }
    if (token === '') throw new ClientConfigError(file, plan.tokenFile.field, `${plan.tokenFile.path} is empty`);
  }
  return {
    server: plan.server,
    ca,
    insecureSkipTlsVerify: plan.insecureSkipTlsVerify,
    tlsServerName: plan.tlsServerName,
    clientCert,
    token: plan.token,
    tokenFile: plan.tokenFile?.path,
    namespace: plan.namespace,
    source: plan.source,
  };
}

/**
 * The connection of `file`'s current context (or `opts.context`). Rejects
 * with ClientConfigError naming the file and the field: missing or
 * unreadable file, not YAML, not a Config, no or unknown context, unknown
 * cluster or user, server missing or not https://, bad base64, unreadable
 * referenced file, a certificate without its key, several auth methods, or
 * an auth method this client does not support (exec, auth-provider,
 * username/password). Idempotent; does not block beyond the reads.
 */
export async function loadPlatformConfig(file: string, opts: { context?: string; readText?: ReadText } = {}): Promise<ConnectionConfig> {
  const path = resolve(file);
  const read = opts.readText ?? readText;
  let text: string;
  try {
    text = await read(path);
  } catch (e) {
    throw new ClientConfigError(path, '', `cannot read the platformconfig: ${describeReadError(e)}`, e);
  }
  const plan = parsePlatformConfig(text, path, opts.context === undefined ? {} : { context: opts.context });
  return materializeConfig(plan, read);
}
