// The contract between the agent's pod machinery (volume plugins, env
// resolution, image pulls) and the API objects a pod references: what a
// ConfigMap, Secret, ServiceAccount or ClusterTrustBundle gives a node, and
// the source that answers for them. In standalone mode there is no source
// and the callers keep their "cannot be served by a standalone agent" waits.
import type { LabelSelectorSpec, Pod } from '../pod-model/pod-types.js';

/** A ConfigMap's keys: `data` as text, `binaryData` as bytes (the API keeps the two key sets disjoint). */
export interface ConfigMapData {
  readonly data: Readonly<Record<string, string>>;
  readonly binaryData: Readonly<Record<string, Uint8Array>>;
}

/** A Secret's keys, decoded from base64, and its type (`platform.io/dockerconfigjson`, `Opaque`, ...). */
export interface SecretData {
  readonly type: string;
  readonly data: Readonly<Record<string, Uint8Array>>;
}

export interface ServiceAccountData {
  readonly imagePullSecrets: string[];
  readonly automountServiceAccountToken?: boolean;
}

export interface TokenRequestInput {
  namespace: string;
  serviceAccount: string;
  audience?: string;
  expirationSeconds: number;
  pod: { name: string; uid: string };
}

export interface IssuedToken {
  token: string;
  /** RFC 3339. */
  expirationTimestamp: string;
}

/** Which ClusterTrustBundles a projection selects: by name, or by signer and labels (labelSelector absent: none). */
export interface TrustBundleQuery {
  name?: string;
  signerName?: string;
  labelSelector?: LabelSelectorSpec;
}

/**
 * The API objects pods reference, for one node. ConfigMaps and Secrets are
 * followed by a single-object watch per referenced object, shared by the
 * pods registered as using it (the kubelet's Watch change-detection
 * strategy); everything else is asked for when needed. Every read may block
 * on the API server; each rejects with the API's error (ApiStatusError) or
 * the signal's reason, except `not found`, which is `undefined`.
 */
export interface ApiObjectSource {
  configMap(ns: string, name: string, signal: AbortSignal): Promise<ConfigMapData | undefined>;
  secret(ns: string, name: string, signal: AbortSignal): Promise<SecretData | undefined>;
  /** A bound token for the pod (TokenRequest), reused until the kubelet's refresh rule says otherwise. */
  serviceAccountToken(req: TokenRequestInput, signal: AbortSignal): Promise<IssuedToken>;
  /** The PEM blocks of the selected bundles, merged, deduplicated and sorted; [] when none match (or the named one is absent). */
  clusterTrustBundles(q: TrustBundleQuery, signal: AbortSignal): Promise<string[]>;
  serviceAccount(ns: string, name: string, signal: AbortSignal): Promise<ServiceAccountData | undefined>;
  /** Starts following the ConfigMaps and Secrets the pod references (idempotent; a changed pod swaps its references). Never blocks. */
  register(pod: Pod): void;
  /** Stops following what only this pod referenced, and forgets its tokens. Idempotent; never blocks. */
  unregister(uid: string): void;
}
