// Credential provider exec plugins (--image-credential-provider-config,
// --image-credential-provider-bin-dir), the kubelet's KEP-2133 protocol under
// the renamed API groups: for an image matching a provider's matchImages, the
// plugin binary is run with a CredentialProviderRequest on stdin and answers
// a CredentialProviderResponse on stdout; answers are cached per image,
// registry or globally for the duration they give.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { AuthConfig } from '../cri/types.js';
import { ConfigFileError } from '../errors.js';
import { parseDuration } from '../config/values/duration.js';
import type { AgentLogger } from '../log/index.js';
import { imageRegistry, matchesImage } from './credentials.js';

export const CONFIG_KINDS = ['agent.config.platform.io/v1', 'agent.config.platform.io/v1beta1', 'agent.config.platform.io/v1alpha1'];
export const PLUGIN_API = 'credentialprovider.agent.platform.io/v1';

export interface ProviderSpec {
  name: string;
  matchImages: string[];
  defaultCacheDurationMs: number;
  apiVersion: string;
  args: string[];
  env: Array<{ name: string; value: string }>;
}

/** Reads and checks a CredentialProviderConfig file. */
export async function loadProviderConfig(path: string): Promise<ProviderSpec[]> {
  let raw: unknown;
  try {
    raw = parse(await readFile(path, 'utf8'));
  } catch (e) {
    throw new ConfigFileError(`failed to read the credential provider config "${path}": ${(e as Error).message}`, { file: path, flag: '--image-credential-provider-config', cause: e });
  }
  const fail = (field: string, msg: string): never => {
    throw new ConfigFileError(`credential provider config "${path}": ${field}: ${msg}`, { file: path, field, flag: '--image-credential-provider-config' });
  };
  const doc = raw as { apiVersion?: unknown; kind?: unknown; providers?: unknown } | null;
  if (!doc || typeof doc !== 'object') return fail('(root)', 'expected a CredentialProviderConfig object');
  if (doc.kind !== 'CredentialProviderConfig') fail('kind', `must be "CredentialProviderConfig", got ${JSON.stringify(doc.kind)}`);
  if (!CONFIG_KINDS.includes(String(doc.apiVersion))) fail('apiVersion', `must be one of ${CONFIG_KINDS.join(', ')}`);
  if (!Array.isArray(doc.providers) || doc.providers.length === 0) return fail('providers', 'at least one provider is required');
  return doc.providers.map((p: Record<string, unknown>, i: number) => {
    const at = `providers[${i}]`;
    if (typeof p['name'] !== 'string' || p['name'] === '' || /[/\\]|^\.\.?$/.test(p['name'])) fail(`${at}.name`, 'must be a plain file name of a plugin in --image-credential-provider-bin-dir');
    if (!Array.isArray(p['matchImages']) || p['matchImages'].length === 0) fail(`${at}.matchImages`, 'at least one pattern is required');
    if (p['apiVersion'] !== PLUGIN_API) fail(`${at}.apiVersion`, `must be "${PLUGIN_API}"`);
    let cache = 0;
    try {
      cache = parseDuration(String(p['defaultCacheDuration'] ?? ''));
    } catch (e) {
      fail(`${at}.defaultCacheDuration`, (e as Error).message);
    }
    return {
      name: p['name'] as string,
      matchImages: (p['matchImages'] as unknown[]).map(String),
      defaultCacheDurationMs: cache,
      apiVersion: PLUGIN_API,
      args: Array.isArray(p['args']) ? p['args'].map(String) : [],
      env: Array.isArray(p['env']) ? (p['env'] as Array<{ name: string; value: string }>) : [],
    };
  });
}

interface CacheEntry {
  auth: AuthConfig | undefined;
  expires: number;
}

export class CredentialPlugins {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly providers: readonly ProviderSpec[],
    private readonly binDir: string,
    private readonly log: AgentLogger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Credentials from the first provider whose patterns match, or undefined. */
  async lookup(image: string): Promise<AuthConfig | undefined> {
    const provider = this.providers.find((p) => p.matchImages.some((m) => matchesImage(m, image)));
    if (!provider) return undefined;
    const registry = imageRegistry(image);
    for (const key of [`${provider.name}|image|${image}`, `${provider.name}|registry|${registry}`, `${provider.name}|global`]) {
      const hit = this.cache.get(key);
      if (hit && hit.expires > this.now()) return hit.auth;
    }
    try {
      const res = await this.exec(provider, image);
      const auth = pickAuth(res.auth ?? {}, image);
      const ttl = res.cacheDuration ? parseDuration(res.cacheDuration) : provider.defaultCacheDurationMs;
      const key = res.cacheKeyType === 'Global' ? `${provider.name}|global` : res.cacheKeyType === 'Registry' ? `${provider.name}|registry|${registry}` : `${provider.name}|image|${image}`;
      if (ttl > 0) this.cache.set(key, { auth, expires: this.now() + ttl });
      return auth;
    } catch (e) {
      this.log.error('Credential provider plugin failed; pulling without its credentials', { provider: provider.name, image, err: e });
      return undefined;
    }
  }

  private exec(p: ProviderSpec, image: string): Promise<PluginResponse> {
    const request = JSON.stringify({ apiVersion: PLUGIN_API, kind: 'CredentialProviderRequest', image });
    return new Promise((resolve, reject) => {
      const child = execFile(join(this.binDir, p.name), p.args, { env: { ...process.env, ...Object.fromEntries(p.env.map((e) => [e.name, e.value])) }, timeout: 60_000, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
        if (err) return reject(new Error(`${err.message.trim()}${stderr ? `: ${stderr.trim()}` : ''}`));
        try {
          const res = JSON.parse(stdout) as PluginResponse;
          if (res.kind !== 'CredentialProviderResponse' || res.apiVersion !== PLUGIN_API) throw new Error(`unexpected response kind/apiVersion: ${res.kind}/${res.apiVersion}`);
          resolve(res);
        } catch (e) {
          reject(new Error(`bad response from plugin: ${(e as Error).message}`));
        }
      });
      child.stdin?.end(request);
    });
  }
}

interface PluginResponse {
  apiVersion: string;
  kind: string;
  cacheKeyType?: 'Image' | 'Registry' | 'Global';
  cacheDuration?: string;
  auth?: Record<string, { username?: string; password?: string }>;
}

/** The auth entry whose key matches the image best (longest matching pattern). */
function pickAuth(auth: Record<string, { username?: string; password?: string }>, image: string): AuthConfig | undefined {
  const best = Object.keys(auth)
    .filter((k) => matchesImage(k, image))
    .sort((a, b) => b.length - a.length)[0];
  if (best === undefined) return undefined;
  const { username, password } = auth[best]!;
  return { ...(username ? { username } : {}), ...(password ? { password } : {}) };
}
