// Container environment from ConfigMaps and Secrets (the kubelet's
// makeEnvironmentVariables, the API parts): `envFrom` sources with their
// prefix and `valueFrom.configMapKeyRef`/`secretKeyRef`. `fetchEnvObjects`
// reads what a container references through the ApiObjectSource (may block on
// the API server; called by the pod sync just before the container is
// created); the rest is pure and runs inside containerEnv. A missing
// required object or key fails container creation with the kubelet's text;
// optional ones are skipped; envFrom keys that are no valid variable name are
// skipped (the kubelet's InvalidEnvironmentVariableNames event is left out).
import type { ApiObjectSource, ConfigMapData, SecretData } from '../api-objects/index.js';
import type { Container, EnvVar, Pod } from '../pod-model/pod-types.js';

/** The objects one container's environment references: undefined values are objects that do not exist. */
export interface EnvObjects {
  readonly configMaps: ReadonlyMap<string, ConfigMapData | undefined>;
  readonly secrets: ReadonlyMap<string, SecretData | undefined>;
}

/** Why a container's environment cannot be built; container-config turns it into a CreateContainerConfigError. */
export class EnvSourceError extends Error {
  readonly code = 'ENV_SOURCE';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EnvSourceError';
  }
}

const STANDALONE = 'a standalone agent has no API server to read it from';

/** The ConfigMap and Secret names a container's env and envFrom reference. Pure. */
export function envReferences(c: Container): { configMaps: Set<string>; secrets: Set<string> } {
  const configMaps = new Set<string>();
  const secrets = new Set<string>();
  for (const e of c.envFrom ?? []) {
    if (e.configMapRef?.name) configMaps.add(e.configMapRef.name);
    if (e.secretRef?.name) secrets.add(e.secretRef.name);
  }
  for (const e of c.env ?? []) {
    if (e.valueFrom?.configMapKeyRef?.name) configMaps.add(e.valueFrom.configMapKeyRef.name);
    if (e.valueFrom?.secretKeyRef?.name) secrets.add(e.valueFrom.secretKeyRef.name);
  }
  return { configMaps, secrets };
}

/** Reads the objects container `c` references; an API failure other than not-found is an EnvSourceError with its message. */
export async function fetchEnvObjects(pod: Pod, c: Container, source: ApiObjectSource, signal: AbortSignal): Promise<EnvObjects> {
  const refs = envReferences(c);
  const ns = pod.metadata.namespace;
  const read = async <T>(names: Set<string>, get: (name: string) => Promise<T | undefined>): Promise<Map<string, T | undefined>> => {
    const out = new Map<string, T | undefined>();
    for (const name of names) {
      try {
        out.set(name, await get(name));
      } catch (e) {
        if (signal.aborted) throw e;
        throw new EnvSourceError((e as Error).message, { cause: e });
      }
    }
    return out;
  };
  return { configMaps: await read(refs.configMaps, (n) => source.configMap(ns, n, signal)), secrets: await read(refs.secrets, (n) => source.secret(ns, n, signal)) };
}

/** upstream's IsEnvVarName: letters, digits, `_`, `-`, `.`, not starting with a digit. */
export const isEnvVarName = (k: string): boolean => /^[-._a-zA-Z][-._a-zA-Z0-9]*$/.test(k);

const text = (v: string | Uint8Array): string => (typeof v === 'string' ? v : Buffer.from(v).toString('utf8'));

/** The variables of the container's envFrom sources in order (a later source wins a name); objects undefined: standalone. Pure. */
export function envFromVars(c: Container, objects: EnvObjects | undefined): Array<{ key: string; value: string }> {
  const vars = new Map<string, string>();
  for (const e of c.envFrom ?? []) {
    const ref = e.configMapRef ?? e.secretRef;
    if (!ref) continue;
    const kind = e.configMapRef ? 'configmap' : 'secret';
    const obj = objects === undefined ? undefined : kind === 'configmap' ? objects.configMaps.get(ref.name) : objects.secrets.get(ref.name);
    if (obj === undefined) {
      if (ref.optional === true) continue;
      throw new EnvSourceError(objects === undefined ? `${kind} "${ref.name}" not found: ${STANDALONE}` : `${kind} "${ref.name}" not found`);
    }
    // A ConfigMap's binaryData is not environment, as in the kubelet.
    const entries: Array<[string, string | Uint8Array]> = kind === 'configmap' ? Object.entries((obj as ConfigMapData).data) : Object.entries((obj as SecretData).data);
    for (const [k, v] of entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const name = `${e.prefix ?? ''}${k}`;
      if (isEnvVarName(name)) vars.set(name, text(v));
    }
  }
  return [...vars].map(([key, value]) => ({ key, value }));
}

/** The value of a configMapKeyRef / secretKeyRef, undefined when an optional one is skipped. Pure. */
export function keyRefValue(pod: Pod, from: NonNullable<EnvVar['valueFrom']>, objects: EnvObjects | undefined): string | undefined {
  const ref = from.configMapKeyRef ?? from.secretKeyRef!;
  const kind = from.configMapKeyRef ? 'configmap' : 'secret';
  const optional = ref.optional === true;
  const obj = objects === undefined ? undefined : kind === 'configmap' ? objects.configMaps.get(ref.name) : objects.secrets.get(ref.name);
  if (obj === undefined) {
    if (optional) return undefined;
    throw new EnvSourceError(objects === undefined ? `${kind} "${ref.name}" not found: ${STANDALONE}` : `${kind} "${ref.name}" not found`);
  }
  const v = kind === 'configmap' ? (obj as ConfigMapData).data[ref.key] : (obj as SecretData).data[ref.key];
  if (v === undefined) {
    if (optional) return undefined;
    throw new EnvSourceError(`couldn't find key ${ref.key} in ${kind === 'configmap' ? 'ConfigMap' : 'Secret'} ${pod.metadata.namespace}/${ref.name}`);
  }
  return text(v);
}
