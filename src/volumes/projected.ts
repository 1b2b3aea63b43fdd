// projected volumes (the kubelet's projected plugin): one directory filled
// from several sources — configMap and secret keys, downward API fields, a
// bound service account token, ClusterTrustBundle certificates — written
// together by the atomic writer on every sync of the pod, so object updates
// and renewed tokens (the token manager's 80 % / 24 h rule) reach the files.
// Every source is tried; the failures are reported together, as the
// kubelet's aggregate. The service-account volume the API server's admission
// adds (`platform-api-access-<x>`) is one of these. `collectProjected` is the
// I/O-light part (reads through the ApiObjectSource), `projectedPlugin` the
// plugin.
import type { ApiObjectSource } from '../api-objects/index.js';
import type { ConfigMapProjection, Pod, Volume, VolumeProjection } from '../pod-model/pod-types.js';
import type { FileProjection } from './atomic-writer.js';
import { keyedPayload, fileMode, notFoundMessage, type KeyedKind } from './api-payload.js';
import { readKeys, writeVolume } from './api-volumes.js';
import { downwardApiPayload } from './downward-api.js';
import { PROJECTED_PLUGIN } from './paths.js';
import { VolumeSetUpError, type NodeFacts, type VolumeContext, type VolumePlugin } from './types.js';

/** The API's default lifetime of a projected token when the pod gives none (1 h). */
export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;
export const CTB_NOT_SUPPORTED = 'ClusterTrustBundle projection is not supported in this agent';

export interface ProjectedOptions {
  /** The ClusterTrustBundle feature gate: off, a clusterTrustBundle source fails the volume. */
  clusterTrustBundles: boolean;
}

/** Go's utilerrors.NewAggregate text: one message as is, several as `[a, b]`. Pure. */
export const aggregateMessage = (messages: readonly string[]): string => (messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`);

interface CollectInput {
  pod: Pod;
  volume: Volume;
  node: NodeFacts;
  source: ApiObjectSource;
  opts: ProjectedOptions;
  signal: AbortSignal;
}

async function keyedSource(kind: KeyedKind, ref: ConfigMapProjection, inp: CollectInput, defaultMode: number): Promise<Map<string, FileProjection>> {
  const keys = await readKeys(inp.source, kind, inp.pod.metadata.namespace, ref.name, inp.signal);
  if (keys === undefined && ref.optional !== true) throw new VolumeSetUpError(notFoundMessage(kind, ref.name));
  return keyedPayload(kind, keys, ref, defaultMode, inp.pod.spec.securityContext?.fsGroup);
}

async function tokenSource(t: NonNullable<VolumeProjection['serviceAccountToken']>, inp: CollectInput, defaultMode: number): Promise<Map<string, FileProjection>> {
  const { pod } = inp;
  const sc = pod.spec.securityContext;
  // With fsGroup the token is 0600 before ownership gives the group read (0640), as the kubelet does. The kubelet's
  // FsUser case (0600 owned by the pod's user) is left out: the agent does not chown files to a user.
  const mode = sc?.fsGroup !== undefined ? fileMode(0o600, sc.fsGroup) : defaultMode;
  const issued = await inp.source.serviceAccountToken(
    { namespace: pod.metadata.namespace, serviceAccount: pod.spec.serviceAccountName || 'default', ...(t.audience ? { audience: t.audience } : {}), expirationSeconds: t.expirationSeconds ?? DEFAULT_TOKEN_EXPIRATION_SECONDS, pod: { name: pod.metadata.name, uid: pod.metadata.uid } },
    inp.signal,
  );
  return new Map([[t.path, { content: issued.token, mode }]]);
}

async function trustBundleSource(b: NonNullable<VolumeProjection['clusterTrustBundle']>, inp: CollectInput, mode: number): Promise<Map<string, FileProjection>> {
  if (!inp.opts.clusterTrustBundles) throw new VolumeSetUpError(CTB_NOT_SUPPORTED);
  const q = b.name !== undefined && b.name !== '' ? { name: b.name } : { signerName: b.signerName ?? '', ...(b.labelSelector ? { labelSelector: b.labelSelector } : {}) };
  const blocks = await inp.source.clusterTrustBundles(q, inp.signal);
  if (blocks.length === 0 && b.optional !== true) {
    throw new VolumeSetUpError(q.name !== undefined ? `while getting ClusterTrustBundle: clustertrustbundles.certificates.platform.io "${q.name}" not found` : `combined trust anchors for signer "${b.signerName ?? ''}" is empty`);
  }
  return new Map([[b.path, { content: blocks.join(''), mode: fileMode(mode, inp.pod.spec.securityContext?.fsGroup) }]]);
}

function sourceFiles(s: VolumeProjection, inp: CollectInput, defaultMode: number): Promise<Map<string, FileProjection>> {
  if (s.configMap) return keyedSource('configmap', s.configMap, inp, defaultMode);
  if (s.secret) return keyedSource('secret', s.secret, inp, defaultMode);
  if (s.downwardAPI) return Promise.resolve(downwardApiPayload(inp.pod, { name: inp.volume.name, downwardAPI: { items: s.downwardAPI.items ?? [], defaultMode } }, inp.node));
  if (s.serviceAccountToken) return tokenSource(s.serviceAccountToken, inp, defaultMode);
  if (s.clusterTrustBundle) return trustBundleSource(s.clusterTrustBundle, inp, defaultMode);
  return Promise.resolve(new Map());
}

/** The files of a projected volume, later sources overriding earlier ones at the same path; throws one VolumeSetUpError naming every source that failed. */
export async function collectProjected(inp: CollectInput): Promise<Map<string, FileProjection>> {
  const p = inp.volume.projected!;
  const defaultMode = p.defaultMode ?? 0o644;
  const payload = new Map<string, FileProjection>();
  const errors: string[] = [];
  for (const s of p.sources ?? []) {
    try {
      for (const [k, v] of await sourceFiles(s, inp, defaultMode)) payload.set(k, v);
    } catch (e) {
      if (inp.signal.aborted) throw e;
      errors.push((e as Error).message);
    }
  }
  if (errors.length > 0) throw new VolumeSetUpError(aggregateMessage(errors));
  return payload;
}

export function projectedPlugin(source: ApiObjectSource, opts: ProjectedOptions): VolumePlugin {
  return {
    name: PROJECTED_PLUGIN,
    canSupport: (v) => v.projected !== undefined,
    async setUp(ctx: VolumeContext): Promise<void> {
      const payload = await collectProjected({ pod: ctx.pod, volume: ctx.volume, node: ctx.node, source, opts, signal: ctx.signal });
      await writeVolume(ctx, payload, 'projected');
    },
    // Files on the node's disk: removing the directory is all.
    async tearDown(): Promise<void> {},
  };
}
