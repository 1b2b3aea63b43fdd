// Public surface of the images folder: the image manager (pull policy,
// bounded and rate-limited pulls, pull back-off, credentials) and its factory.
import type { ImageService } from '../cri/types.js';
import type { AgentLogger } from '../log/index.js';
import { IMAGE_PULL_BACKOFF, KeyedBackoff } from '../util/backoff.js';
import { CredentialPlugins, loadProviderConfig } from './credential-plugins.js';
import { configFileCandidates, credentialLookup } from './credentials.js';
import { ImageManager, type ImageMetricsSink } from './manager.js';
import type { EventRecorder } from '../events/index.js';

export { ImageManager, type EnsureResult, type ImageManagerOptions, type ImageUser } from './manager.js';
export { pullSecretsKeyring } from './pull-secrets.js';

export interface ImagesInput {
  images: ImageService;
  /** Pulls at once (config/effective.ts maxParallelImagePulls); undefined: no bound. */
  maxParallel: number | undefined;
  /** --registry-qps / --registry-burst; undefined: unlimited. */
  rateLimit: { qps: number; burst: number } | undefined;
  /** --root-dir: its config.json is the first docker config file looked at. */
  rootDirectory: string;
  /** --image-credential-provider-config ('' for none) and --image-credential-provider-bin-dir. */
  providers: { config: string; binDir: string };
  log: AgentLogger;
  /** Pull timing and sizes (src/metrics' AgentMetrics fits). */
  metrics?: ImageMetricsSink;
  /** The image events (src/events); none: not recorded. */
  events?: EventRecorder;
}

/** Builds the image manager; reads the credential-provider configuration now, so a bad one fails the start. */
export async function createImageManager(inp: ImagesInput): Promise<ImageManager> {
  const candidates = configFileCandidates(inp.rootDirectory, process.cwd(), process.env['HOME']);
  const credLog = inp.log.child({ component: 'credentials' });
  const plugins = inp.providers.config !== '' ? new CredentialPlugins(await loadProviderConfig(inp.providers.config), inp.providers.binDir, credLog) : undefined;
  return new ImageManager({
    images: inp.images,
    maxParallel: inp.maxParallel,
    ...(inp.rateLimit ? { rateLimit: inp.rateLimit } : {}),
    backoff: new KeyedBackoff(IMAGE_PULL_BACKOFF),
    credentials: credentialLookup(candidates, plugins, credLog),
    log: inp.log.child({ component: 'images' }),
    ...(inp.metrics ? { metrics: inp.metrics } : {}),
    ...(inp.events ? { events: inp.events } : {}),
  });
}
