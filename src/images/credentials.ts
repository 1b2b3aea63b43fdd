// Registry credentials from docker-style config files, where the kubelet
// looks for them on a node (pkg/credentialprovider/config.go): the agent's
// root directory, the working directory, $HOME/.docker and /.docker, as
// config.json ({"auths": {...}}) or the older .dockercfg ({registry: {...}}).
// The first file found wins, as in the kubelet.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AuthConfig } from '../cri/types.js';

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

/** The host (and port) part a keyring key names: `https://127.0.0.1:5002/v2/` → `127.0.0.1:5002`. */
export function registryKey(key: string): string {
  return key.replace(/^[a-z]+:\/\//, '').replace(/\/.*$/, '');
}

/** The registry host of an image reference; Docker Hub when it has none. */
export function imageRegistry(image: string): string {
  const slash = image.indexOf('/');
  if (slash < 0) return 'docker.io';
  const first = image.slice(0, slash);
  return first.includes('.') || first.includes(':') || first === 'localhost' ? first : 'docker.io';
}

export async function loadKeyring(candidates: ReturnType<typeof configFileCandidates>): Promise<{ keyring: Keyring; file?: string }> {
  for (const c of candidates) {
    let text: string;
    try {
      text = await readFile(c.path, 'utf8');
    } catch {
      continue;
    }
    const json = JSON.parse(text) as Record<string, unknown>;
    const auths = (c.format === 'config.json' ? json['auths'] : json) as Record<string, DockerAuthEntry> | undefined;
    const keyring = new Map<string, DockerAuthEntry>();
    for (const [k, v] of Object.entries(auths ?? {})) keyring.set(registryKey(k), v);
    return { keyring, file: c.path };
  }
  return { keyring: new Map() };
}

/** Credentials for pulling `image`, in the form the CRI wants (server address with a scheme). */
export function authFor(image: string, keyring: Keyring): AuthConfig | undefined {
  const registry = imageRegistry(image);
  const entry = keyring.get(registry) ?? (registry === 'docker.io' ? keyring.get('index.docker.io') : undefined);
  if (!entry) return undefined;
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
