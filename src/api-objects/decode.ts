// API objects (JSON form, as the client's codec gives them) → what the agent
// uses of them. Pure; a malformed field is treated as absent (the API server
// validated the object), never thrown.
import type { ApiObject } from '../client/index.js';
import type { Pod } from '../pod-model/pod-types.js';
import type { ConfigMapData, SecretData, ServiceAccountData } from './types.js';

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const strings = (v: unknown): Record<string, string> => (isRecord(v) ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string')) : {});

const bytes = (v: unknown): Record<string, Uint8Array> => Object.fromEntries(Object.entries(strings(v)).map(([k, b64]) => [k, new Uint8Array(Buffer.from(b64, 'base64'))]));

export function configMapData(obj: ApiObject): ConfigMapData {
  return { data: strings(obj['data']), binaryData: bytes(obj['binaryData']) };
}

export function secretData(obj: ApiObject): SecretData {
  return { type: typeof obj['type'] === 'string' ? obj['type'] : 'Opaque', data: bytes(obj['data']) };
}

export function serviceAccountData(obj: ApiObject): ServiceAccountData {
  const refs = Array.isArray(obj['imagePullSecrets']) ? (obj['imagePullSecrets'] as unknown[]) : [];
  const names = refs.map((r) => (isRecord(r) && typeof r['name'] === 'string' ? r['name'] : '')).filter((n) => n !== '');
  const auto = obj['automountServiceAccountToken'];
  return { imagePullSecrets: names, ...(typeof auto === 'boolean' ? { automountServiceAccountToken: auto } : {}) };
}

/** The ConfigMaps and Secrets a pod references (volumes, projected sources, env, envFrom, imagePullSecrets), as the kubelet's VisitPod*Names. Pure. */
export function podReferences(pod: Pod): { configMaps: Set<string>; secrets: Set<string> } {
  const configMaps = new Set<string>();
  const secrets = new Set<string>();
  const add = (set: Set<string>, name: string | undefined): void => {
    if (name) set.add(name);
  };
  for (const v of pod.spec.volumes ?? []) {
    add(configMaps, v.configMap?.name);
    add(secrets, v.secret?.secretName);
    for (const s of v.projected?.sources ?? []) {
      add(configMaps, s.configMap?.name);
      add(secrets, s.secret?.name);
    }
  }
  for (const c of [...(pod.spec.initContainers ?? []), ...pod.spec.containers]) {
    for (const e of c.envFrom ?? []) {
      add(configMaps, e.configMapRef?.name);
      add(secrets, e.secretRef?.name);
    }
    for (const e of c.env ?? []) {
      add(configMaps, e.valueFrom?.configMapKeyRef?.name);
      add(secrets, e.valueFrom?.secretKeyRef?.name);
    }
  }
  for (const s of pod.spec.imagePullSecrets ?? []) add(secrets, s.name);
  return { configMaps, secrets };
}
