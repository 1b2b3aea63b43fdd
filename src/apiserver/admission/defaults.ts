// Objects the server keeps in every namespace: the `default` ServiceAccount
// pods fall back to (made at namespace creation) and the
// `platform-root-ca.crt` ConfigMap the token volume projects (kept by the
// root-CA publisher, controllers/root-ca.ts, upstream's
// root-ca-cert-publisher renamed). Pure.
import { DEFAULT_SERVICE_ACCOUNT, ROOT_CA_CONFIGMAP } from './serviceaccount.js';

export function defaultServiceAccount(namespace: string): { apiVersion: 'v1'; kind: 'ServiceAccount'; metadata: { name: string; namespace: string } } {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace } };
}

/** `caPem`: the cluster CA bundle clients should trust for the server (PEM). */
export function rootCaConfigMap(namespace: string, caPem: string): { apiVersion: 'v1'; kind: 'ConfigMap'; metadata: { name: string; namespace: string; annotations: Record<string, string> }; data: Record<string, string> } {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROOT_CA_CONFIGMAP, namespace, annotations: { [ROOT_CA_DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION } }, data: { 'ca.crt': caPem } };
}

export const ROOT_CA_DESCRIPTION_ANNOTATION = 'platform.io/description';
const ROOT_CA_DESCRIPTION = 'Contains a CA bundle that can be used to verify the platform-apiserver when using internal endpoints such as the internal service IP or platform.default.svc. No other usage is guaranteed across distributions of the platform.';

interface ConfigMapLike {
  metadata: { annotations?: Record<string, string>; [k: string]: unknown };
  data?: unknown;
  [k: string]: unknown;
}

/**
 * What the root-CA publisher does about a namespace's config map (upstream's
 * publisher sync): create it when missing; when its data is not exactly
 * {ca.crt} or the description annotation is missing, the same object with
 * that data and annotation (other fields kept); nothing when it is right.
 */
export function rootCaRepair<T extends ConfigMapLike>(existing: T | undefined, namespace: string, caPem: string): { action: 'create'; object: ReturnType<typeof rootCaConfigMap> } | { action: 'update'; object: T } | { action: 'none' } {
  if (existing === undefined) return { action: 'create', object: rootCaConfigMap(namespace, caPem) };
  const data = existing.data;
  const exact = typeof data === 'object' && data !== null && Object.keys(data).length === 1 && (data as Record<string, unknown>)['ca.crt'] === caPem;
  const described = (existing.metadata.annotations?.[ROOT_CA_DESCRIPTION_ANNOTATION] ?? '') !== '';
  if (exact && described) return { action: 'none' };
  const annotations = { ...(existing.metadata.annotations ?? {}) };
  if (!(ROOT_CA_DESCRIPTION_ANNOTATION in annotations)) annotations[ROOT_CA_DESCRIPTION_ANNOTATION] = ROOT_CA_DESCRIPTION;
  return { action: 'update', object: { ...existing, metadata: { ...existing.metadata, annotations }, data: { 'ca.crt': caPem } } };
}
