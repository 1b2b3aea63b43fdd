// What a pod refers to by name in its own namespace: the objects the node
// authorizer lets the pod's node read (upstream's node graph edges) and the
// secrets the enforce-mountable-secrets admission checks. Pure; reads any
// JSON shape without trusting it.

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const arr = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter(isRec) : []);
const s = (v: unknown): string => (typeof v === 'string' ? v : '');
const at = (o: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, p) => (isRec(v) ? v[p] : undefined), o);

/** Where in the pod a secret is used, for admission messages. */
export type SecretUse =
  | { via: 'volume'; name: string }
  | { via: 'projected'; name: string }
  | { via: 'env'; name: string; container: string; initContainer: boolean; envVar: string }
  | { via: 'envFrom'; name: string; container: string; initContainer: boolean }
  | { via: 'imagePullSecret'; name: string; index: number };

export interface PodReferences {
  serviceAccount: string;
  secrets: ReadonlySet<string>;
  configMaps: ReadonlySet<string>;
  persistentVolumeClaims: ReadonlySet<string>;
}

/** Containers of every kind, each with whether it is an init container (ephemeral containers count as regular ones). */
export function allContainers(pod: unknown): Array<{ c: Rec; init: boolean }> {
  const spec = at(pod, 'spec');
  return [...arr(at(spec, 'initContainers')).map((c) => ({ c, init: true })), ...arr(at(spec, 'containers')).map((c) => ({ c, init: false })), ...arr(at(spec, 'ephemeralContainers')).map((c) => ({ c, init: false }))];
}

/** Every use of a secret in the pod, in spec order: volumes, projected sources, env, envFrom, imagePullSecrets. */
export function secretUses(pod: unknown): SecretUse[] {
  const uses: SecretUse[] = [];
  for (const v of arr(at(pod, 'spec', 'volumes'))) {
    const name = s(at(v, 'secret', 'secretName'));
    if (name !== '') uses.push({ via: 'volume', name });
    for (const src of arr(at(v, 'projected', 'sources'))) {
      const p = s(at(src, 'secret', 'name'));
      if (p !== '') uses.push({ via: 'projected', name: p });
    }
  }
  for (const { c, init } of allContainers(pod)) {
    const container = s(c.name);
    for (const e of arr(c.env)) {
      const name = s(at(e, 'valueFrom', 'secretKeyRef', 'name'));
      if (name !== '') uses.push({ via: 'env', name, container, initContainer: init, envVar: s(e.name) });
    }
    for (const e of arr(c.envFrom)) {
      const name = s(at(e, 'secretRef', 'name'));
      if (name !== '') uses.push({ via: 'envFrom', name, container, initContainer: init });
    }
  }
  arr(at(pod, 'spec', 'imagePullSecrets')).forEach((r, index) => {
    const name = s(r.name);
    if (name !== '') uses.push({ via: 'imagePullSecret', name, index });
  });
  return uses;
}

function configMapNames(pod: unknown): Set<string> {
  const out = new Set<string>();
  for (const v of arr(at(pod, 'spec', 'volumes'))) {
    const name = s(at(v, 'configMap', 'name'));
    if (name !== '') out.add(name);
    for (const src of arr(at(v, 'projected', 'sources'))) {
      const p = s(at(src, 'configMap', 'name'));
      if (p !== '') out.add(p);
    }
  }
  for (const { c } of allContainers(pod)) {
    for (const e of arr(c.env)) {
      const name = s(at(e, 'valueFrom', 'configMapKeyRef', 'name'));
      if (name !== '') out.add(name);
    }
    for (const e of arr(c.envFrom)) {
      const name = s(at(e, 'configMapRef', 'name'));
      if (name !== '') out.add(name);
    }
  }
  return out;
}

/** All names the pod references, by kind (the node graph's edges from one pod). */
export function podReferences(pod: unknown): PodReferences {
  const pvcs = new Set<string>();
  for (const v of arr(at(pod, 'spec', 'volumes'))) {
    const claim = s(at(v, 'persistentVolumeClaim', 'claimName'));
    if (claim !== '') pvcs.add(claim);
    // A generic ephemeral volume's claim is named <pod>-<volume>.
    if (isRec(v.ephemeral)) pvcs.add(`${s(at(pod, 'metadata', 'name'))}-${s(v.name)}`);
  }
  return {
    serviceAccount: s(at(pod, 'spec', 'serviceAccountName')),
    secrets: new Set(secretUses(pod).map((u) => u.name)),
    configMaps: configMapNames(pod),
    persistentVolumeClaims: pvcs,
  };
}

export type ReferencedKind = 'secrets' | 'configmaps' | 'serviceaccounts' | 'persistentvolumeclaims';

/** Does the pod reference the object `kind/name` (in the pod's namespace)? */
export function podReferencesObject(pod: unknown, kind: ReferencedKind, name: string): boolean {
  if (name === '') return false;
  const refs = podReferences(pod);
  switch (kind) {
    case 'secrets':
      return refs.secrets.has(name);
    case 'configmaps':
      return refs.configMaps.has(name);
    case 'serviceaccounts':
      return refs.serviceAccount === name;
    case 'persistentvolumeclaims':
      return refs.persistentVolumeClaims.has(name);
  }
}
