// Objects the registry creates in every new namespace (upstream's
// serviceaccounts and root-ca-cert-publisher controllers, folded into
// namespace creation): the `default` ServiceAccount pods fall back to, and
// the `platform-root-ca.crt` ConfigMap the token volume projects. Pure.
import { DEFAULT_SERVICE_ACCOUNT, ROOT_CA_CONFIGMAP } from './serviceaccount.js';

export function defaultServiceAccount(namespace: string): { apiVersion: 'v1'; kind: 'ServiceAccount'; metadata: { name: string; namespace: string } } {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace } };
}

/** `caPem`: the cluster CA bundle clients should trust for the server (PEM). */
export function rootCaConfigMap(namespace: string, caPem: string): { apiVersion: 'v1'; kind: 'ConfigMap'; metadata: { name: string; namespace: string; annotations: Record<string, string> }; data: Record<string, string> } {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROOT_CA_CONFIGMAP, namespace, annotations: { 'platform.io/description': 'Contains a CA bundle that can be used to verify the platform-apiserver when using internal endpoints such as the internal service IP or platform.default.svc. No other usage is guaranteed across distributions of the platform.' } }, data: { 'ca.crt': caPem } };
}
