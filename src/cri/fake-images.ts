// The image half of FakeRuntime: a local image store and a pretend registry.
// References are normalised as containerd does (busybox -> docker.io/library/busybox:latest),
// so tests may name images the way pod specs do.

import { createHash } from 'node:crypto';
import { abortableSleep } from '../lifecycle/abort.js';
import type { AuthConfig, Image } from './types.js';
import { CriError } from './errors.js';

/** An image to preload: a reference, optionally with the attributes the runtime reports. */
export interface FakeImage {
  ref: string;
  id?: string;
  size?: number;
  pinned?: boolean;
  repoDigests?: string[];
  /** The image's configured user: a number (`USER 1000`) or a name (`USER nobody`); absent: unset (root). */
  user?: number | string;
}

/** How the pretend registry answers a pull of one reference. */
export interface FakePullBehaviour {
  /** The pull takes this long (a real timer; the caller's signal cancels it). */
  delayMs?: number;
  /** The pull fails with this error (after the delay). */
  error?: CriError;
  /** The registry demands these credentials; a pull without them fails as containerd's does (UNKNOWN, 401). */
  auth?: { username: string; password: string };
  /** Attributes of the pulled image. */
  image?: Omit<FakeImage, 'ref'>;
}

/** containerd's normal form of an image reference: registry host, repository path, tag (or digest). */
export function normalizeImageRef(ref: string): string {
  if (ref.startsWith('sha256:')) return ref;
  let name = ref;
  const slash = name.indexOf('/');
  const first = slash === -1 ? '' : name.slice(0, slash);
  const hasHost = slash !== -1 && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (!hasHost) name = `docker.io/${slash === -1 ? `library/${name}` : name}`;
  const lastPart = name.slice(name.lastIndexOf('/') + 1);
  if (!name.includes('@') && !lastPart.includes(':')) name = `${name}:latest`;
  return name;
}

function imageIdFor(ref: string): string {
  return `sha256:${createHash('sha256').update(normalizeImageRef(ref)).digest('hex')}`;
}

export class FakeImageStore {
  private readonly images = new Map<string, Image>(); // by id, in insertion order
  private readonly registry = new Map<string, FakePullBehaviour>(); // by normalised ref

  /** Adds (or replaces) a local image; returns its id. */
  add(img: string | FakeImage): string {
    const spec: FakeImage = typeof img === 'string' ? { ref: img } : img;
    const tag = normalizeImageRef(spec.ref);
    const id = spec.id ?? imageIdFor(tag);
    const existing = this.images.get(id);
    const repoTags = existing ? [...new Set([...existing.repoTags, tag])] : [tag];
    this.images.set(id, { id, repoTags, repoDigests: spec.repoDigests ?? existing?.repoDigests ?? [], size: spec.size ?? existing?.size ?? 1_000_000, ...userOf(spec.user ?? existing?.uid ?? existing?.username), pinned: spec.pinned ?? false });
    return id;
  }

  setRegistry(ref: string, behaviour: FakePullBehaviour): void {
    this.registry.set(normalizeImageRef(ref), behaviour);
  }

  /** The local image `ref` names: by id, by tag, or by digest reference. */
  find(ref: string): Image | undefined {
    const byId = this.images.get(ref);
    if (byId) return byId;
    const n = normalizeImageRef(ref);
    for (const img of this.images.values()) {
      if (img.repoTags.includes(n) || img.repoDigests.includes(n) || img.repoDigests.includes(ref)) return img;
    }
    return undefined;
  }

  list(): Image[] {
    return [...this.images.values()].map(copyImage);
  }

  remove(ref: string): void {
    const img = this.find(ref);
    if (img) this.images.delete(img.id);
  }

  /** Pulls `ref`: the registry's behaviour if it has one, else a no-op for a local image, else NOT_FOUND. */
  async pull(ref: string, auth: AuthConfig | undefined, signal: AbortSignal | undefined): Promise<string> {
    const n = normalizeImageRef(ref);
    const behaviour = this.registry.get(n);
    if (behaviour === undefined) {
      const local = this.find(ref);
      if (local) return local.id;
      throw new CriError('NOT_FOUND', `failed to pull and unpack image "${n}": failed to resolve reference "${n}": ${n}: not found`);
    }
    if (behaviour.delayMs !== undefined && behaviour.delayMs > 0) {
      await abortableSleep(behaviour.delayMs, signal ?? new AbortController().signal);
    }
    if (behaviour.auth !== undefined && (auth?.username !== behaviour.auth.username || auth.password !== behaviour.auth.password)) {
      throw new CriError('UNKNOWN', `failed to pull and unpack image "${n}": failed to resolve reference "${n}": pull access denied, repository does not exist or may require authorization: 401 Unauthorized`);
    }
    if (behaviour.error !== undefined) throw behaviour.error;
    return this.add({ ...behaviour.image, ref: n });
  }

  fsUsage(): { usedBytes: number; inodesUsed: number } {
    let usedBytes = 0;
    for (const img of this.images.values()) usedBytes += img.size;
    return { usedBytes, inodesUsed: this.images.size * 10 };
  }
}

export function copyImage(i: Image): Image {
  return { id: i.id, repoTags: [...i.repoTags], repoDigests: [...i.repoDigests], size: i.size, ...(i.uid === undefined ? {} : { uid: i.uid }), username: i.username, pinned: i.pinned };
}

/** The CRI's split of an image user: a numeric one as uid, a name as username (containerd's rule). */
function userOf(user: number | string | undefined): Pick<Image, 'uid' | 'username'> {
  if (user === undefined || user === '') return { username: '' };
  if (typeof user === 'number') return { uid: user, username: '' };
  return /^\d+$/.test(user) ? { uid: Number(user), username: '' } : { username: user };
}
