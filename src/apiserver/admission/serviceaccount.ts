// ServiceAccount admission for pod creation (upstream's serviceaccount
// admission plugin): default spec.serviceAccountName to `default`, require the
// account to exist, mount the API-access projected volume unless automount is
// off (the pod's field wins over the account's), copy the account's
// imagePullSecrets into a pod without any, and for mirror pods refuse any
// reference to accounts and secrets. The mutation is pure (applyServiceAccount);
// ServiceAccountAdmission adds the one lookup. Runs on create only, before
// validation; the returned error is the 403 to send.
import { randomInt } from 'node:crypto';
import type { ApiError } from '../../api/errors.js';
import { apiErrors, isNotFound } from '../../api/errors.js';
import { secretUses } from '../authz/pod-references.js';
import type { CachedLookup } from '../registry/lister.js';
import { checkMountableSecrets } from './mountable-secrets.js';
import { MIRROR_POD_ANNOTATION, type AccountLike, type PodLike, arr, isRec } from './pod-shape.js';

export const DEFAULT_SERVICE_ACCOUNT = 'default';
export const TOKEN_VOLUME_PREFIX = 'platform-api-access-';
export const TOKEN_MOUNT_PATH = '/var/run/secrets/platform.io/serviceaccount';
export const ROOT_CA_CONFIGMAP = 'platform-root-ca.crt';
export const TOKEN_EXPIRATION_SECONDS = 3607;

/** upstream's utilrand alphabet (no vowels, no confusable digits). */
const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
export function randomSuffix(n = 5): string {
  let s = '';
  for (let i = 0; i < n; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}

const POD_RESOURCE = { group: '', resource: 'pods' };
const forbid = (pod: PodLike, why: string): ApiError => apiErrors.forbidden(POD_RESOURCE, pod.metadata?.name ?? '', why);

/** The projected volume the admission adds, as upstream's TokenVolumeSource. */
export function tokenVolume(name: string): Record<string, unknown> {
  return {
    name,
    projected: {
      sources: [
        { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: 'token' } },
        { configMap: { name: ROOT_CA_CONFIGMAP, items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
      defaultMode: 0o644,
    },
  };
}

function shouldAutomount(pod: PodLike, account: AccountLike): boolean {
  const p = pod.spec?.automountServiceAccountToken;
  if (typeof p === 'boolean') return p;
  return typeof account.automountServiceAccountToken === 'boolean' ? account.automountServiceAccountToken : true;
}

function mountToken(pod: PodLike, suffix: string): void {
  const spec = pod.spec ?? (pod.spec = {});
  const volumes = arr(spec.volumes);
  const existing = volumes.find((v) => typeof v.name === 'string' && v.name.startsWith(TOKEN_VOLUME_PREFIX));
  const name = typeof existing?.name === 'string' ? existing.name : `${TOKEN_VOLUME_PREFIX}${suffix}`;
  if (existing === undefined) spec.volumes = [...volumes, tokenVolume(name)];
  for (const key of ['initContainers', 'containers'] as const) {
    for (const c of arr(spec[key])) {
      const mounts = arr(c.volumeMounts);
      if (mounts.some((m) => m.mountPath === TOKEN_MOUNT_PATH)) continue;
      c.volumeMounts = [...mounts, { name, readOnly: true, mountPath: TOKEN_MOUNT_PATH }];
    }
  }
}

/** Mirror pods (static pods' API copies) may not use accounts, secrets or token projections. */
export function checkMirrorPod(pod: PodLike): string | undefined {
  if ((pod.spec?.serviceAccountName ?? '') !== '') return 'a mirror pod may not reference service accounts';
  if (secretUses(pod).some((u) => u.via !== 'imagePullSecret')) return 'a mirror pod may not reference secrets';
  for (const v of arr(pod.spec?.volumes)) {
    const projected = isRec(v.projected) ? arr(v.projected.sources) : [];
    if (projected.some((s) => isRec(s.serviceAccountToken))) return 'a mirror pod may not use ServiceAccountToken volume projections';
  }
  return undefined;
}

export const isMirrorPod = (pod: PodLike): boolean => pod.metadata?.annotations?.[MIRROR_POD_ANNOTATION] !== undefined;

/**
 * Mutates a new, non-mirror pod for its (found) account: token volume and
 * mounts, image pull secrets. Pure given `suffix`.
 */
export function applyServiceAccount(pod: PodLike, account: AccountLike, suffix: string): void {
  if (shouldAutomount(pod, account)) mountToken(pod, suffix);
  const spec = pod.spec ?? (pod.spec = {});
  if (arr(spec.imagePullSecrets).length === 0 && arr(account.imagePullSecrets).length > 0) {
    spec.imagePullSecrets = arr(account.imagePullSecrets).map((r) => ({ name: r.name }));
  }
}

/** The account lookup the registry provides (the pod's namespace). */
export interface ServiceAccountGetter {
  getServiceAccount(namespace: string, name: string, signal: AbortSignal): Promise<AccountLike | undefined>;
}

/** The part of the registry's serviceaccounts store read here (GenericStore's shape). */
export interface AccountStore {
  /** Throws a NotFound ApiError for a missing account. */
  get(namespace: string, name: string): Promise<AccountLike>;
  /** The store's watch-fed cache (GenericStore.cached) with its key scheme, when it has one. */
  cached?(): { lookup(key: string): CachedLookup };
  key?(namespace: string, name: string): string;
}

/**
 * The getter over the registry's serviceaccounts store: the watch-fed cache
 * when it can answer, else (not synced, behind this process's own writes, or
 * a miss: an account just made) a live read, as upstream's plugin does.
 */
export function accountGetterFromStore(store: AccountStore): ServiceAccountGetter {
  return {
    async getServiceAccount(namespace, name) {
      if (store.cached !== undefined && store.key !== undefined) {
        const hit = store.cached().lookup(store.key(namespace, name));
        if (hit.fresh && hit.object !== undefined) return hit.object as AccountLike;
      }
      try {
        return await store.get(namespace, name);
      } catch (e) {
        if (isNotFound(e)) return undefined;
        throw e;
      }
    },
  };
}

export class ServiceAccountAdmission {
  readonly #accounts: ServiceAccountGetter;
  readonly #suffix: () => string;

  constructor(accounts: ServiceAccountGetter, suffix: () => string = randomSuffix) {
    this.#accounts = accounts;
    this.#suffix = suffix;
  }

  /** Admits (and mutates) a pod being created in `namespace`; the 403 to answer, or undefined. */
  async admitCreate(pod: PodLike, namespace: string, signal: AbortSignal): Promise<ApiError | undefined> {
    if (isMirrorPod(pod)) {
      const why = checkMirrorPod(pod);
      return why === undefined ? undefined : forbid(pod, why);
    }
    const spec = pod.spec ?? (pod.spec = {});
    const name = typeof spec.serviceAccountName === 'string' && spec.serviceAccountName !== '' ? spec.serviceAccountName : DEFAULT_SERVICE_ACCOUNT;
    spec.serviceAccountName = name;
    const account = await this.#accounts.getServiceAccount(namespace, name, signal);
    if (account === undefined) return forbid(pod, `error looking up service account ${namespace}/${name}: serviceaccount "${name}" not found`);
    applyServiceAccount(pod, account, this.#suffix());
    const why = checkMountableSecrets(pod, account);
    return why === undefined ? undefined : forbid(pod, why);
  }
}
