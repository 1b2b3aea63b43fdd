// --admin-platformconfig: a random admin bearer token (user admin, group
// system:masters), held in memory only, and a platformconfig file (the
// kubeconfig format) that points a client at the server with it. The file is
// written 0600 through a rename once the server listens (its URL holds the
// real port). A new token on every start: an old file stops working.
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { AgentError } from '../../errors.js';
import { writeAtomic } from '../certs/serving.js';
import type { UserInfo } from '../types.js';
import { SYSTEM_MASTERS } from './types.js';

export const ADMIN_USER: UserInfo = { name: 'admin', uid: '', groups: [SYSTEM_MASTERS], extra: {} };

/** 32 random bytes, hex: what the admin's bearer token is. */
export const newAdminToken = (): string => randomBytes(32).toString('hex');

/** The URL clients use: the bind address, or loopback when it is a wildcard. */
export function serverUrl(bindAddress: string, port: number): string {
  const host = bindAddress === '' || bindAddress === '0.0.0.0' ? '127.0.0.1' : bindAddress === '::' ? '::1' : bindAddress;
  return `https://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

export interface PlatformconfigInput {
  server: string;
  caPem: string;
  token: string;
  /** Names the cluster, user and context; default `platform`. */
  clusterName?: string;
}

/** The platformconfig text (YAML; every value is a plain scalar: base64, hex, a URL). */
export function renderPlatformconfig(i: PlatformconfigInput): string {
  const cluster = i.clusterName ?? 'platform';
  const context = `admin@${cluster}`;
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${cluster}`,
    '  cluster:',
    `    server: ${i.server}`,
    `    certificate-authority-data: ${Buffer.from(i.caPem).toString('base64')}`,
    'users:',
    '- name: admin',
    '  user:',
    `    token: ${i.token}`,
    'contexts:',
    `- name: ${context}`,
    '  context:',
    `    cluster: ${cluster}`,
    '    user: admin',
    `current-context: ${context}`,
    'preferences: {}',
    '',
  ].join('\n');
}

export async function writePlatformconfig(path: string, input: PlatformconfigInput): Promise<void> {
  try {
    await writeAtomic(path, renderPlatformconfig(input), 0o600);
  } catch (e) {
    throw new AgentError('ESTARTUP', `--admin-platformconfig ${path}: ${(e as Error).message}`, { flag: '--admin-platformconfig', file: path, cause: e });
  }
}
