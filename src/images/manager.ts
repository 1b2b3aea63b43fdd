// Makes a container's image present before the container is created (the
// kubelet's imageManager.EnsureImageExists): imagePullPolicy Always /
// IfNotPresent / Never, registry credentials (each candidate tried in turn),
// pulls serialized or bounded in parallel (--serialize-image-pulls,
// maxParallelImagePulls) and rate limited (--registry-qps/-burst: a pull over
// the limit fails at once with "pull QPS exceeded" and backs off, as in the kubelet),
// and per-image pull back-off. Failures come back as the waiting reasons the
// kubelet reports (ErrImagePull, ImagePullBackOff, ErrImageNeverPull).
import type { PullPolicy } from '../pod-model/pod-types.js';
import type { AuthConfig, ImageService, PodSandboxConfig } from '../cri/types.js';
import type { AgentLogger } from '../log/index.js';
import type { KeyedBackoff } from '../util/backoff.js';
import { Semaphore, TokenBucket } from '../util/rate-limit.js';
import { NOOP_RECORDER, pulledMessage, type EventObjectRef, type EventRecorder } from '../events/index.js';
import { authsFor, type Keyring } from './credentials.js';

export type ImageFailureReason = 'ErrImagePull' | 'ImagePullBackOff' | 'ErrImageNeverPull' | 'InvalidImageName';

/** The image's configured user, as ImageStatus reports it: runAsUser's default and what runAsNonRoot is checked against. */
export interface ImageUser {
  /** A numeric user (`USER 1000`). */
  uid?: number;
  /** A user name (`USER nobody`); '' when numeric or unset (unset runs as root). */
  username: string;
}

/** `user` is the image's configured user when the runtime's status said it (not after a pull: see user()). */
export type EnsureResult = { ok: true; imageRef: string; pulled: boolean; user?: ImageUser } | { ok: false; reason: ImageFailureReason; message: string };

/** One container's image, as its pod sync asks for it. */
export interface ImageRequest {
  image: string;
  policy: PullPolicy;
  /** Pull back-off is kept per key and image: the pod's UID. */
  backoffKey: string;
  /** The pod's sandbox configuration, handed to the runtime with the pull. */
  sandbox: PodSandboxConfig;
  /** The container the image is for: the events' object (none: no events). */
  ref?: EventObjectRef;
  /** The pod's imagePullSecrets as a keyring (pull-secrets.ts), read only when a pull happens; tried before the node's credentials. */
  pullSecrets?: () => Promise<Keyring>;
}

/** A place the caller holds that must not be held through a pull (util/rate-limit.ts SlotHold fits). */
export interface Releasable {
  release(): void;
}

export interface ImageManagerOptions {
  images: ImageService;
  /** How many pulls may run at once (1: --serialize-image-pulls; config/effective.ts); undefined: no bound. */
  maxParallel: number | undefined;
  /** --registry-qps / --registry-burst; undefined: unlimited. */
  rateLimit?: { qps: number; burst: number };
  backoff: KeyedBackoff;
  /** Credentials that may pull an image, to try in order; none: an anonymous pull. */
  credentials: (image: string) => Promise<readonly AuthConfig[]>;
  log: AgentLogger;
  /** Monotonic ms; performance.now() by default. */
  now?: () => number;
  /** Pull timing (src/metrics' AgentMetrics fits); absent: no metrics and no size lookup. Synchronous, must not throw. */
  metrics?: ImageMetricsSink;
  /** Pulling, Pulled, Failed, BackOff, ErrImageNeverPull, InspectFailed events, as the kubelet's image manager records them. */
  events?: EventRecorder;
}

/** The kubelet's image_pull_duration_seconds: a successful pull's seconds and the image's size when the runtime says it. */
export interface ImageMetricsSink {
  imagePull(seconds: number, sizeBytes: number | undefined): void;
}

/** `busybox` → `busybox:latest`: the runtime resolves names, but an untagged name means :latest. */
export function withDefaultTag(image: string): string {
  if (image.includes('@')) return image;
  const slash = image.lastIndexOf('/');
  return image.indexOf(':', slash + 1) < 0 ? `${image}:latest` : image;
}

const userOf = (i: { uid?: number; username: string }): ImageUser => (i.uid !== undefined ? { uid: i.uid, username: '' } : { username: i.username });

const VALID_IMAGE = /^[a-zA-Z0-9][a-zA-Z0-9._\-/:@]*$/;

/**
 * How long the runtime's answer that an image is present stands for the next
 * containers of that image. Many pods of one image started at once (110
 * manifests written together) would otherwise ask the runtime once each; an
 * image removed meanwhile fails the container's creation, and the caller then
 * forgets the answer (forget()), so the retry asks again and pulls.
 */
export const PRESENT_TTL_MS = 2_000;

export class ImageManager {
  private readonly slots: Semaphore | undefined;
  private readonly bucket: TokenBucket | undefined;
  /** Image reference -> the image's ID and user, and when the runtime last said it is present. */
  private readonly present = new Map<string, { imageRef: string; user: ImageUser | undefined; at: number }>();
  private readonly now: () => number;

  constructor(private readonly opts: ImageManagerOptions) {
    this.now = opts.now ?? (() => performance.now());
    this.slots = opts.maxParallel !== undefined ? new Semaphore(opts.maxParallel) : undefined;
    this.bucket = opts.rateLimit ? new TokenBucket(opts.rateLimit.qps, opts.rateLimit.burst) : undefined;
  }

  /**
   * Makes `req.image` present. Called by the pod sync for each container it
   * starts; blocks through a pull (the pull is cancelled when `signal` aborts,
   * and then rejects), otherwise never throws: failures are waiting reasons.
   * `held`, a place the caller holds (its pod start slot), is released just
   * before a pull begins and not otherwise: it is not held through a pull.
   */
  async ensure(req: ImageRequest, signal: AbortSignal, held?: Releasable): Promise<EnsureResult> {
    const { image, policy, backoffKey, sandbox } = req;
    const ev = (type: 'Normal' | 'Warning', reason: string, message: string): void => (req.ref ? (this.opts.events ?? NOOP_RECORDER).event(req.ref, type, reason, message) : undefined);
    if (!VALID_IMAGE.test(image)) {
      const message = `Failed to apply default image tag "${image}": invalid reference format`;
      ev('Warning', 'InspectFailed', message);
      return { ok: false, reason: 'InvalidImageName', message };
    }
    const ref = withDefaultTag(image);
    if (policy !== 'Always') {
      const known = this.present.get(ref);
      if (known !== undefined && this.now() - known.at < PRESENT_TTL_MS) {
        ev('Normal', 'Pulled', `Container image "${image}" already present on machine`);
        return { ok: true, imageRef: known.imageRef, pulled: false, ...(known.user ? { user: known.user } : {}) };
      }
      const present = await this.opts.images.imageStatus(ref, signal);
      if (present) {
        const user = userOf(present);
        this.remember(ref, present.id, user);
        ev('Normal', 'Pulled', `Container image "${image}" already present on machine`);
        return { ok: true, imageRef: present.id, pulled: false, user };
      }
      if (policy === 'Never') {
        const message = `Container image "${image}" is not present with pull policy of Never`;
        ev('Warning', 'ErrImageNeverPull', message);
        return { ok: false, reason: 'ErrImageNeverPull', message };
      }
    }
    const key = `${backoffKey}/${ref}`;
    if (this.opts.backoff.inBackoffSinceUpdate(key)) {
      const message = `Back-off pulling image "${image}"`;
      ev('Normal', 'BackOff', message);
      return { ok: false, reason: 'ImagePullBackOff', message };
    }
    held?.release();
    ev('Normal', 'Pulling', `Pulling image "${image}"`);
    const began = this.now();
    try {
      const pulled = await (this.slots ? this.slots.run(() => this.pull(ref, sandbox, signal, req.pullSecrets)) : this.pull(ref, sandbox, signal, req.pullSecrets));
      const imageRef = pulled.id;
      ev('Normal', 'Pulled', pulledMessage(image, pulled.ms, this.now() - began));
      // The pull answers with the image's ID only: its user is asked for when a container needs it (user()).
      this.remember(ref, imageRef, undefined);
      this.opts.backoff.reset(key);
      return { ok: true, imageRef, pulled: true };
    } catch (e) {
      if (signal.aborted) throw e;
      this.opts.backoff.next(key);
      const message = `Failed to pull image "${image}": ${(e as Error).message}`;
      ev('Warning', 'Failed', message);
      this.opts.log.warn('Failed to pull image', { image, err: e });
      return { ok: false, reason: 'ErrImagePull', message };
    }
  }

  /** A container of `image` could not be created: the next ensure() asks the runtime again. */
  forget(image: string): void {
    this.present.delete(withDefaultTag(image));
  }

  /** Forgets back-offs of pulls that stopped failing long ago, and stale presence answers (called from the resync tick). */
  gc(): void {
    this.opts.backoff.gc();
    const now = this.now();
    for (const [ref, p] of this.present) if (now - p.at >= PRESENT_TTL_MS) this.present.delete(ref);
  }

  /**
   * The configured user of a present image (the kubelet's getImageUser), for
   * a container whose runAsNonRoot must be checked against it: the presence
   * answer's when it has one, else the runtime's ImageStatus. Undefined when
   * the image is gone. May block on the runtime; never pulls.
   */
  async user(image: string, signal: AbortSignal): Promise<ImageUser | undefined> {
    const ref = withDefaultTag(image);
    const known = this.present.get(ref);
    if (known?.user !== undefined && this.now() - known.at < PRESENT_TTL_MS) return known.user;
    const status = await this.opts.images.imageStatus(ref, signal);
    if (status === undefined) return undefined;
    const user = userOf(status);
    this.remember(ref, status.id, user);
    return user;
  }

  private remember(ref: string, imageRef: string, user: ImageUser | undefined): void {
    this.present.set(ref, { imageRef, user, at: this.now() });
  }

  /** The pulled image's size for the pull metric's size class, as the kubelet asks after a pull; undefined when the runtime cannot say. */
  private async sizeOf(imageRef: string, signal: AbortSignal): Promise<number | undefined> {
    try {
      const size = (await this.opts.images.imageStatus(imageRef, signal))?.size;
      return size === undefined ? undefined : Number(size);
    } catch {
      return undefined;
    }
  }

  /** The image's ID and how long the pull itself took (ms, without the wait for a slot). */
  private async pull(ref: string, sandbox: PodSandboxConfig, signal: AbortSignal, pullSecrets?: () => Promise<Keyring>): Promise<{ id: string; ms: number }> {
    if (this.bucket && !this.bucket.tryTake()) throw new Error('pull QPS exceeded');
    const auths = [...(pullSecrets ? authsFor(ref, await pullSecrets()) : []), ...(await this.opts.credentials(ref))];
    const started = Date.now();
    let lastError: unknown;
    for (const auth of auths.length > 0 ? auths : [undefined]) {
      try {
        const id = await this.opts.images.pullImage(ref, auth, sandbox, signal);
        const durationMs = Date.now() - started;
        this.opts.log.info('Pulled image', { image: ref, imageRef: id, durationMs, withCredentials: auth !== undefined });
        if (this.opts.metrics) this.opts.metrics.imagePull(durationMs / 1000, await this.sizeOf(id, signal));
        return { id, ms: durationMs };
      } catch (e) {
        if (signal.aborted) throw e;
        lastError = e;
      }
    }
    throw lastError;
  }
}
