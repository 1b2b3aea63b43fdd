// Registry credentials from docker-style config files, where the kubelet
// looks for them on a node (pkg/credentialprovider/config.go): the agent's
// root directory, the working directory, $HOME/.docker and /.docker, as
// config.json ({"auths": {...}}) or the older .dockercfg ({registry: {...}}).
// The first file that parses wins, as in the kubelet; a file that does not
// parse is reported and the search goes on. Keys match images as the kubelet's
// keyring does: host labels with `*` globs, the port exactly, a path prefix.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AuthConfig } from '../cri/types.js';
import type { AgentLogger } from '../log/index.js';

export interface DockerAuthEntry {
  username?: string;
  password?: string;
  auth?: string;
  identitytoken?: string;
  registrytoken?: string;
}

export type Keyring = ReadonlyMap<string, DockerAuthEntry>;

export function configFileCandidates(rootDir: string, cwd: string, home: string | undefined): Array<{ path: string; format: 'config.json' | 'dockercfg' }> {
  const dirs = [rootDir, cwd, ...(home ? [join(home, '.docker')] : []), '/.docker'];
  const out: Array<{ path: string; format: 'config.json' | 'dockercfg' }> = [];
  for (const d of dirs) out.push({ path: join(d, 'config.json'), format: 'config.json' });
  for (const d of [rootDir, cwd, ...(home ? [home] : []), '/']) out.push({ path: join(d, '.dockercfg'), format: 'dockercfg' });
  return out;
}

/**
 * The keyring key a config file key names: scheme and a Docker `/v1/` or
 * `/v2/` API path dropped, `https://127.0.0.1:5002/v2/` → `127.0.0.1:5002`,
 * `reg.io/team/` → `reg.io/team`; Docker Hub's legacy key means docker.io.
 */
export function registryKey(key: string): string {
  const k = key
    .replace(/^[a-z]+:\/\//, '')
    .replace(/^([^/]*)\/v[12](?=\/|$)/, '$1')
    .replace(/\/+$/, '');
  return k === 'index.docker.io' ? 'docker.io' : k;
}

/** The registry host of an image reference; Docker Hub when it has none. */
export function imageRegistry(image: string): string {
  const slash = image.indexOf('/');
  if (slash < 0) return 'docker.io';
  const first = image.slice(0, slash);
  return first.includes('.') || first.includes(':') || first === 'localhost' ? first : 'docker.io';
}

/**
 * Whether a keyring or matchImages pattern covers `image` (the kubelet's
 * URLsMatch): the same number of host labels, each matching (`*` globs within
 * a label), the same port, and the pattern's path a prefix of the image's.
 */
export function matchesImage(pattern: string, image: string): boolean {
  const strip = (s: string): { host: string; path: string } => {
    const noScheme = s.replace(/^[a-z]+:\/\//, '');
    const slash = noScheme.indexOf('/');
    return slash < 0 ? { host: noScheme, path: '' } : { host: noScheme.slice(0, slash), path: noScheme.slice(slash + 1) };
  };
  const p = strip(pattern);
  const reg = imageRegistry(image);
  const rest = image.startsWith(`${reg}/`) ? image.slice(reg.length + 1) : image;
  const [pHost, pPort = ''] = p.host.split(':');
  const [iHost, iPort = ''] = reg.split(':');
  if (pPort !== iPort) return false;
  const pl = pHost!.split('.');
  const il = iHost!.split('.');
  if (pl.length !== il.length) return false;
  for (let i = 0; i < pl.length; i++) {
    const re = new RegExp(`^${pl[i]!.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^.]*')}$`);
    if (!re.test(il[i]!)) return false;
  }
  const path = rest.replace(/[:@].*$/, '');
  return p.path === '' || path === p.path || path.startsWith(`${p.path}/`);
}

export interface KeyringFile {
  keyring: Keyring;
  /** The file the keyring came from. */
  file?: string;
  /** Files found but not readable as a config, with why (the search went on past them). */
  skipped: Array<{ file: string; reason: string }>;
}

export async function loadKeyring(candidates: ReturnType<typeof configFileCandidates>): Promise<KeyringFile> {
  const skipped: KeyringFile['skipped'] = [];
  for (const c of candidates) {
    let text: string;
    try {
      text = await readFile(c.path, 'utf8');
    } catch {
      continue;
    }
    let auths: unknown;
    try {
      const json = JSON.parse(text) as unknown;
      auths = c.format === 'config.json' && json !== null && typeof json === 'object' ? (json as Record<string, unknown>)['auths'] : json;
    } catch (e) {
      skipped.push({ file: c.path, reason: (e as Error).message });
      continue;
    }
    if (auths !== undefined && (auths === null || typeof auths !== 'object' || Array.isArray(auths))) {
      skipped.push({ file: c.path, reason: c.format === 'config.json' ? '"auths" is not an object' : 'not an object of registries' });
      continue;
    }
    const keyring = new Map<string, DockerAuthEntry>();
    for (const [k, v] of Object.entries((auths ?? {}) as Record<string, unknown>)) {
      if (v !== null && typeof v === 'object') keyring.set(registryKey(k), v as DockerAuthEntry);
    }
    return { keyring, file: c.path, skipped };
  }
  return { keyring: new Map(), skipped };
}

/**
 * Every credential of the keyring that covers `image`, the most specific key
 * first (the kubelet's Lookup), in the form the CRI wants: the pull tries them
 * in turn.
 */
export function authsFor(image: string, keyring: Keyring): AuthConfig[] {
  return [...keyring.keys()]
    .filter((k) => matchesImage(k, image))
    .sort((a, b) => b.length - a.length || (a < b ? -1 : 1))
    .map((k) => toAuthConfig(keyring.get(k)!));
}

function toAuthConfig(entry: DockerAuthEntry): AuthConfig {
  let { username, password } = entry;
  if ((!username || !password) && entry.auth) {
    const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    if (i > 0) [username, password] = [decoded.slice(0, i), decoded.slice(i + 1)];
  }
  // containerd 1.6 rejects a bare host:port as server_address; leave it empty so the image's registry applies.
  return {
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
    ...(entry.identitytoken ? { identityToken: entry.identitytoken } : {}),
    ...(entry.registrytoken ? { registryToken: entry.registrytoken } : {}),
  };
}

/**
 * Credentials to try for an image, in the kubelet's keyring order: docker
 * config files first (its ".dockercfg" provider sorts first), then a
 * credential-provider plugin's answer. The files are read at every lookup, so
 * edits apply to the next pull; a file that does not parse is reported once
 * per problem.
 */
export function credentialLookup(
  candidates: ReturnType<typeof configFileCandidates>,
  plugins: { lookup(image: string): Promise<AuthConfig | undefined> } | undefined,
  log: AgentLogger,
): (image: string) => Promise<AuthConfig[]> {
  const reported = new Set<string>();
  return async (image) => {
    const { keyring, skipped } = await loadKeyring(candidates);
    for (const s of skipped) {
      const key = `${s.file}\0${s.reason}`;
      if (reported.has(key)) continue;
      reported.add(key);
      log.warn('Skipping a registry credentials file that does not parse', { file: s.file, reason: s.reason });
    }
    const fromPlugin = await plugins?.lookup(image);
    return [...authsFor(image, keyring), ...(fromPlugin ? [fromPlugin] : [])];
  };
}
