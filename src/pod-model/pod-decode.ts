// Decodes a pod manifest (the core/v1 Pod JSON shape) into the agent's Pod
// model: structure and types checked by zod, API defaults applied (restart
// policy, grace period, pull policy, ...). Unknown fields are dropped, as the
// kubelet's lenient decoder does. Semantic rules live in pod-validate.ts.
import { z } from 'zod';
import type { Container, Pod, PullPolicy, Volume } from './pod-types.js';

const str = z.string();
/** Own `__proto__` keys (JSON.parse makes them) would vanish in the record; refuse them instead of dropping silently. */
const noProtoKey = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v, ctx) => {
    if (v !== null && typeof v === 'object' && Object.hasOwn(v, '__proto__')) ctx.addIssue({ code: 'custom', message: '"__proto__" is not a valid key', path: ['__proto__'], input: v });
    return v;
  }, schema);
const strMap = noProtoKey(z.record(z.string(), z.string()));
// int32 fields overflow in the API's Go types; int64 ones are bounded by what JSON numbers hold exactly.
// A YAML `-0` is 0: normalised so that the decoded pod survives a JSON round trip unchanged.
const noNegativeZero = (n: number): number => (n === 0 ? 0 : n);
const int = z.number().int().transform(noNegativeZero);
const int32 = z.number().int().min(-2147483648).max(2147483647).transform(noNegativeZero);
const protocol = z.enum(['TCP', 'UDP', 'SCTP']);

const intOrString = z.union([int32, z.string()]);
// A Quantity may be written as a JSON number (`cpu: 0.5`), as the API accepts.
const quantity = z.union([z.number(), z.string()]);
const exec = z.object({ command: z.array(str) });
const httpGet = z.object({
  path: str.optional(),
  port: intOrString,
  host: str.optional(),
  scheme: z.enum(['HTTP', 'HTTPS']).optional(),
  httpHeaders: z.array(z.object({ name: str, value: str })).optional(),
});
const tcpSocket = z.object({ port: intOrString, host: str.optional() });
const grpc = z.object({ port: int32, service: str.optional() });
const probe = z.object({
  exec: exec.optional(),
  httpGet: httpGet.optional(),
  tcpSocket: tcpSocket.optional(),
  grpc: grpc.optional(),
  initialDelaySeconds: int32.optional(),
  timeoutSeconds: int32.optional(),
  periodSeconds: int32.optional(),
  successThreshold: int32.optional(),
  failureThreshold: int32.optional(),
  terminationGracePeriodSeconds: int.optional(),
});
const handler = z.object({ exec: exec.optional(), httpGet: httpGet.optional(), tcpSocket: tcpSocket.optional() });
const seccomp = z.object({ type: z.enum(['RuntimeDefault', 'Unconfined', 'Localhost']), localhostProfile: str.optional() });

const container = z.object({
  name: str,
  image: str.optional(),
  command: z.array(str).optional(),
  args: z.array(str).optional(),
  workingDir: str.optional(),
  ports: z.array(z.object({ name: str.optional(), containerPort: int32, hostPort: int32.optional(), protocol: protocol.optional(), hostIP: str.optional() })).optional(),
  env: z
    .array(
      z.object({
        name: str,
        value: str.optional(),
        valueFrom: z
          .object({
            fieldRef: z.object({ apiVersion: str.optional(), fieldPath: str }).optional(),
            resourceFieldRef: z.object({ containerName: str.optional(), resource: str, divisor: quantity.optional() }).optional(),
            configMapKeyRef: z.object({ name: str, key: str, optional: z.boolean().optional() }).optional(),
            secretKeyRef: z.object({ name: str, key: str, optional: z.boolean().optional() }).optional(),
          })
          .optional(),
      }),
    )
    .optional(),
  envFrom: z
    .array(z.object({ prefix: str.optional(), configMapRef: z.object({ name: str, optional: z.boolean().optional() }).optional(), secretRef: z.object({ name: str, optional: z.boolean().optional() }).optional() }))
    .optional(),
  resources: z.object({ limits: noProtoKey(z.record(str, quantity)).optional(), requests: noProtoKey(z.record(str, quantity)).optional() }).optional(),
  volumeMounts: z.array(z.object({ name: str, mountPath: str, readOnly: z.boolean().optional(), subPath: str.optional(), subPathExpr: str.optional(), mountPropagation: z.enum(['None', 'HostToContainer', 'Bidirectional']).optional() })).optional(),
  livenessProbe: probe.optional(),
  readinessProbe: probe.optional(),
  startupProbe: probe.optional(),
  lifecycle: z.object({ postStart: handler.optional(), preStop: handler.optional() }).optional(),
  terminationMessagePath: str.optional(),
  terminationMessagePolicy: z.enum(['File', 'FallbackToLogsOnError']).optional(),
  imagePullPolicy: z.enum(['Always', 'IfNotPresent', 'Never']).optional(),
  securityContext: z
    .object({
      privileged: z.boolean().optional(),
      runAsUser: int.optional(),
      runAsGroup: int.optional(),
      runAsNonRoot: z.boolean().optional(),
      readOnlyRootFilesystem: z.boolean().optional(),
      allowPrivilegeEscalation: z.boolean().optional(),
      capabilities: z.object({ add: z.array(str).optional(), drop: z.array(str).optional() }).optional(),
      seccompProfile: seccomp.optional(),
      procMount: z.enum(['Default', 'Unmasked']).optional(),
    })
    .optional(),
  stdin: z.boolean().optional(),
  stdinOnce: z.boolean().optional(),
  tty: z.boolean().optional(),
  restartPolicy: z.literal('Always').optional(),
});

/**
 * The API's volume sources that the agent serves on its own are decoded in
 * full; every other source the API defines is kept by its key only (its
 * content unread), so that the volume layer can name the kind it cannot serve.
 * Keys the API does not define are dropped like any unknown field.
 */
const OTHER_VOLUME_SOURCES = [
  'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi', 'glusterfs', 'persistentVolumeClaim', 'rbd', 'flexVolume',
  'cinder', 'cephfs', 'flocker', 'fc', 'azureFile', 'configMap', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected',
  'portworxVolume', 'scaleIO', 'storageos', 'csi', 'ephemeral',
] as const;
const downwardApiFile = z.object({
  path: str,
  fieldRef: z.object({ apiVersion: str.optional(), fieldPath: str }).optional(),
  resourceFieldRef: z.object({ containerName: str.optional(), resource: str, divisor: quantity.optional() }).optional(),
  mode: int32.optional(),
});
const keyToPath = z.object({ key: str, path: str, mode: int32.optional() });
const keyProjection = z.object({ name: str.optional(), items: z.array(keyToPath).optional(), optional: z.boolean().optional() });
const labelSelectorSpec = z.object({ matchLabels: strMap.optional(), matchExpressions: z.array(z.object({ key: str, operator: str, values: z.array(str).optional() })).optional() });
// API-backed sources are decoded in full for the agent's API-backed plugins (src/volumes/api-*.ts) and still named in otherSources.
const apiSources = {
  configMap: keyProjection.extend({ defaultMode: int32.optional() }).optional(),
  secret: z.object({ secretName: str.optional(), items: z.array(keyToPath).optional(), defaultMode: int32.optional(), optional: z.boolean().optional() }).optional(),
  projected: z
    .object({
      defaultMode: int32.optional(),
      sources: z
        .array(
          z.object({
            configMap: keyProjection.optional(),
            secret: keyProjection.optional(),
            downwardAPI: z.object({ items: z.array(downwardApiFile).optional() }).optional(),
            serviceAccountToken: z.object({ audience: str.optional(), expirationSeconds: int.optional(), path: str }).optional(),
            clusterTrustBundle: z.object({ name: str.optional(), signerName: str.optional(), labelSelector: labelSelectorSpec.optional(), optional: z.boolean().optional(), path: str }).optional(),
          }),
        )
        .nullish(),
    })
    .optional(),
};
const volume = z.object({
  name: str,
  hostPath: z.object({ path: str, type: str.optional() }).optional(),
  emptyDir: z.object({ medium: str.optional(), sizeLimit: quantity.optional() }).optional(),
  downwardAPI: z.object({ items: z.array(downwardApiFile).optional(), defaultMode: int32.optional() }).optional(),
  ...Object.fromEntries(OTHER_VOLUME_SOURCES.map((k) => [k, z.unknown().optional()])),
  ...apiSources,
});

const podSchema = z.object({
  apiVersion: z.literal('v1', { error: 'must be "v1"' }),
  kind: z.literal('Pod', { error: 'must be "Pod"' }),
  metadata: z.object({
    name: str.optional(),
    namespace: str.optional(),
    uid: str.optional(),
    labels: strMap.optional(),
    annotations: strMap.optional(),
  }),
  spec: z.object({
    containers: z.array(container),
    initContainers: z.array(container).optional(),
    volumes: z.array(volume).optional(),
    restartPolicy: z.enum(['Always', 'OnFailure', 'Never']).optional(),
    terminationGracePeriodSeconds: int.optional(),
    activeDeadlineSeconds: int.optional(),
    dnsPolicy: z.enum(['ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None']).optional(),
    dnsConfig: z.object({ nameservers: z.array(str).optional(), searches: z.array(str).optional(), options: z.array(z.object({ name: str, value: str.optional() })).optional() }).optional(),
    hostNetwork: z.boolean().optional(),
    hostPID: z.boolean().optional(),
    hostIPC: z.boolean().optional(),
    shareProcessNamespace: z.boolean().optional(),
    hostname: str.optional(),
    subdomain: str.optional(),
    nodeName: str.optional(),
    serviceAccountName: str.optional(),
    automountServiceAccountToken: z.boolean().optional(),
    imagePullSecrets: z.array(z.object({ name: str.optional() })).optional(),
    securityContext: z
      .object({
        runAsUser: int.optional(),
        runAsGroup: int.optional(),
        runAsNonRoot: z.boolean().optional(),
        supplementalGroups: z.array(int).optional(),
        fsGroup: int.optional(),
        sysctls: z.array(z.object({ name: str, value: str })).optional(),
        seccompProfile: seccomp.optional(),
      })
      .optional(),
    tolerations: z.array(z.object({ key: str.optional(), operator: z.enum(['Exists', 'Equal']).optional(), value: str.optional(), effect: str.optional(), tolerationSeconds: int.optional() })).optional(),
    priority: int32.optional(),
    priorityClassName: str.optional(),
    enableServiceLinks: z.boolean().optional(),
    hostAliases: z.array(z.object({ ip: str, hostnames: z.array(str) })).optional(),
    runtimeClassName: str.optional(),
    nodeSelector: strMap.optional(),
    // Any value is kept so that validation can refuse it by name: a static pod may not have ephemeral containers.
    ephemeralContainers: z.unknown().optional(),
  }),
});

type RawContainer = z.infer<typeof container>;

function toVolume(v: z.infer<typeof volume>): Volume {
  const raw = v as Record<string, unknown>;
  const others = OTHER_VOLUME_SOURCES.filter((k) => raw[k] !== undefined && raw[k] !== null);
  const out: Volume = { name: v.name };
  if (v.hostPath) out.hostPath = v.hostPath;
  if (v.emptyDir) out.emptyDir = { ...v.emptyDir, sizeLimit: v.emptyDir.sizeLimit === undefined ? undefined : quantityText(v.emptyDir.sizeLimit) };
  if (v.downwardAPI) {
    const items = v.downwardAPI.items?.map(({ resourceFieldRef: ref, ...i }) => ({ ...i, ...(ref ? { resourceFieldRef: { ...ref, divisor: ref.divisor === undefined ? undefined : quantityText(ref.divisor) } } : {}) }));
    // The API's default mode of a downward API volume's files: 0644.
    out.downwardAPI = { ...v.downwardAPI, items, defaultMode: v.downwardAPI.defaultMode ?? 0o644 };
  }
  if (others.length > 0) out.otherSources = others;
  Object.assign(out, apiVolumeSources(v));
  return out;
}

/** The API's defaults of configMap, secret and projected volumes: files 0644, configMap name '' when absent. Pure. */
function apiVolumeSources(v: z.infer<typeof volume>): Pick<Volume, 'configMap' | 'secret' | 'projected'> {
  const out: Pick<Volume, 'configMap' | 'secret' | 'projected'> = {};
  if (v.configMap) out.configMap = { ...v.configMap, name: v.configMap.name ?? '', defaultMode: v.configMap.defaultMode ?? 0o644 };
  if (v.secret) out.secret = { ...v.secret, defaultMode: v.secret.defaultMode ?? 0o644 };
  if (v.projected) {
    const sources = (v.projected.sources ?? []).map((s) => {
      const { configMap, secret, downwardAPI, ...rest } = s;
      return {
        ...rest,
        ...(configMap ? { configMap: { ...configMap, name: configMap.name ?? '' } } : {}),
        ...(secret ? { secret: { ...secret, name: secret.name ?? '' } } : {}),
        ...(downwardAPI ? { downwardAPI: { items: downwardAPI.items?.map(({ resourceFieldRef: ref, ...i }) => ({ ...i, ...(ref ? { resourceFieldRef: { ...ref, divisor: ref.divisor === undefined ? undefined : quantityText(ref.divisor) } } : {}) })) } } : {}),
      };
    });
    out.projected = { sources, defaultMode: v.projected.defaultMode ?? 0o644 };
  }
  return out;
}

export interface DecodeProblem {
  /** Field path as the API names it, e.g. `spec.containers[0].image`. */
  readonly field: string;
  readonly message: string;
}

export type DecodeResult = { ok: true; pod: Pod } | { ok: false; problems: DecodeProblem[] };

/** `spec.containers[0].image` from zod's path segments. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? String(p) : `.${String(p)}`;
  return out;
}

/** The API's default: Always for `:latest` or an untagged image, else IfNotPresent. */
export function defaultPullPolicy(image: string): PullPolicy {
  if (image.includes('@')) return 'IfNotPresent';
  const lastSlash = image.lastIndexOf('/');
  const colon = image.indexOf(':', lastSlash + 1);
  const tag = colon < 0 ? '' : image.slice(colon + 1);
  return tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

const quantityText = (v: string | number): string => (typeof v === 'number' ? String(v) : v);

function toContainer(c: RawContainer): Container {
  const image = c.image ?? '';
  const out: Container = {
    ...c,
    image,
    resources: {
      limits: Object.fromEntries(Object.entries(c.resources?.limits ?? {}).map(([k, v]) => [k, quantityText(v)])),
      requests: Object.fromEntries(Object.entries(c.resources?.requests ?? {}).map(([k, v]) => [k, quantityText(v)])),
    },
    ports: c.ports?.map((p) => ({ ...p, protocol: p.protocol ?? 'TCP' })),
    terminationMessagePath: c.terminationMessagePath ?? '/dev/termination-log',
    terminationMessagePolicy: c.terminationMessagePolicy ?? 'File',
    imagePullPolicy: c.imagePullPolicy ?? defaultPullPolicy(image),
  } as Container;
  // Requests default to limits where only limits are given (API defaulting).
  for (const [k, v] of Object.entries(out.resources.limits)) out.resources.requests[k] ??= v;
  return out;
}

/**
 * Decodes one Pod object (already parsed from YAML/JSON). No zod config here:
 * zod reads `jitless` when a schema is built (this module's load), so setting
 * it per call never changed these schemas, and the compiled parsers they have
 * are the faster ones for a server decoding many pods.
 */
export function decodePod(raw: unknown): DecodeResult {
  let parsed: ReturnType<typeof podSchema.safeParse>;
  try {
    parsed = podSchema.safeParse(raw);
  } catch (e) {
    // Only non-plain input (a getter or proxy that throws) gets here; YAML and JSON parsers never produce it.
    return { ok: false, problems: [{ field: '(root)', message: `could not be read: ${e instanceof Error ? e.message : String(e)}` }] };
  }
  if (!parsed.success) {
    return { ok: false, problems: parsed.error.issues.map((i) => ({ field: fieldPath(i.path) || '(root)', message: i.message || 'invalid value' })) };
  }
  const { metadata, spec: { ephemeralContainers, ...spec } } = parsed.data;
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: metadata.name ?? '', namespace: metadata.namespace ?? '', uid: metadata.uid ?? '', labels: metadata.labels ?? {}, annotations: metadata.annotations ?? {} },
    spec: {
      ...spec,
      containers: spec.containers.map(toContainer),
      initContainers: spec.initContainers?.map(toContainer),
      volumes: spec.volumes?.map(toVolume),
      restartPolicy: spec.restartPolicy ?? 'Always',
      terminationGracePeriodSeconds: spec.terminationGracePeriodSeconds ?? 30,
      dnsPolicy: spec.dnsPolicy ?? 'ClusterFirst',
      ...(ephemeralContainers === undefined ? {} : { ephemeralContainers }),
    },
  };
  return { ok: true, pod };
}
