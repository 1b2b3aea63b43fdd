// Generators for the pod decoder's fuzz tier: valid pods (which must be
// accepted), valid pods with one spot made wrong, and values no YAML parser
// produces but a caller might pass (Date, Map, functions, throwing getters).
import fc from 'fast-check';

type Obj = Record<string, unknown>;

// Built from character sets rather than fc.stringMatching, which is far too slow for thousands of pods.
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const UPPER = LOWER.toUpperCase();
const chars = (set: string) => fc.constantFrom(...set.split(''));
/** One character of `ends`, then up to `max - 2` of `inner`, then one of `ends`; or a single `ends` character. */
const token = (ends: string, inner: string, max: number) =>
  fc.tuple(chars(ends), fc.string({ unit: chars(inner), maxLength: max - 2 }), fc.option(chars(ends), { nil: undefined })).map(([a, mid, z]) => (z === undefined ? a : `${a}${mid}${z}`));

const label = token(LOWER + DIGITS, `${LOWER}${DIGITS}-`, 12);
const subdomain = fc.array(label, { minLength: 1, maxLength: 3 }).map((l) => l.join('.'));
const nameToken = token(LOWER + UPPER + DIGITS, `${LOWER}${UPPER}${DIGITS}-_.`, 12);
const qualifiedKey = fc.tuple(fc.option(subdomain, { nil: undefined }), nameToken).map(([p, n]) => (p === undefined ? n : `${p}/${n}`));
const labelValue = fc.oneof(fc.constant(''), nameToken);
const labelMap = fc.dictionary(qualifiedKey, labelValue, { maxKeys: 4 });
const ianaName = fc.tuple(chars(LOWER), fc.array(fc.oneof(chars(LOWER + DIGITS), chars(LOWER + DIGITS).map((c) => `-${c}`)), { maxLength: 6 })).map(([a, rest]) => `${a}${rest.join('')}`.slice(0, 15)).filter((n) => !n.endsWith('-'));
const envName = fc.tuple(chars(`${UPPER}_`), fc.string({ unit: chars(`${UPPER}${DIGITS}_`), maxLength: 8 })).map(([a, b]) => a + b);
const image = fc.tuple(chars(LOWER), fc.string({ unit: chars(LOWER + DIGITS), maxLength: 8 }), fc.option(fc.string({ unit: chars(`${LOWER}${DIGITS}.`), minLength: 1, maxLength: 5 }), { nil: undefined })).map(([a, b, tag]) => (tag === undefined ? a + b : `${a}${b}:${tag}`));
const port = fc.integer({ min: 1, max: 65535 });
const nat = fc.nat({ max: 2147483647 });
const sysctl = fc.constantFrom('net.core.somaxconn', 'kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net/ipv4/conf/eth0.100/forwarding', 'kernel.msgmax');

const handler = fc.oneof(
  fc.record({ exec: fc.record({ command: fc.array(fc.string({ maxLength: 10 }), { minLength: 1, maxLength: 3 }) }) }),
  fc.record({ httpGet: fc.record({ port, path: fc.constantFrom('/', '/healthz'), scheme: fc.constantFrom('HTTP', 'HTTPS') }, { requiredKeys: ['port'] }) }),
  fc.record({ tcpSocket: fc.record({ port }) }),
);
const probeHandler = fc.oneof(handler, fc.record({ grpc: fc.record({ port }) }));
const probeNumbers = { initialDelaySeconds: nat, timeoutSeconds: nat, periodSeconds: nat, failureThreshold: nat };
const probe = (kind: 'liveness' | 'readiness') =>
  fc
    .tuple(probeHandler, fc.record(probeNumbers, { requiredKeys: [] }), kind === 'readiness' ? fc.record({ successThreshold: nat }, { requiredKeys: [] }) : fc.record({ successThreshold: fc.constantFrom(0, 1), terminationGracePeriodSeconds: fc.integer({ min: 1, max: 3600 }) }, { requiredKeys: [] }))
    .map(([h, n, extra]) => ({ ...h, ...n, ...extra }));

const resources = fc.record({ cpu: fc.integer({ min: 1, max: 8000 }), mem: fc.integer({ min: 1, max: 4096 }), cut: fc.double({ min: 0, max: 1, noNaN: true }) }).map(({ cpu, mem, cut }) => ({
  limits: { cpu: `${cpu}m`, memory: `${mem}Mi` },
  requests: { cpu: `${Math.floor(cpu * cut)}m` },
}));

const envVar = fc.oneof(
  fc.record({ name: envName, value: fc.string({ maxLength: 20 }) }),
  fc.record({ name: envName, valueFrom: fc.record({ fieldRef: fc.record({ fieldPath: fc.constantFrom('metadata.name', 'metadata.namespace', 'status.podIP', "metadata.labels['app']") }) }) }),
);

type ContainerBody = { [k: string]: unknown; mounts: number[]; sidecar: boolean };

// Generated without names or volume references (no fc.chain, which is slow); assemble() adds them.
const containerBody: fc.Arbitrary<ContainerBody> = fc.record(
  {
    image,
    ports: fc.uniqueArray(fc.record({ containerPort: port, name: ianaName, protocol: fc.constantFrom('TCP', 'UDP', 'SCTP') }, { requiredKeys: ['containerPort'] }), { maxLength: 3, selector: (p) => p.name ?? `#${p.containerPort}` }),
    env: fc.array(envVar, { maxLength: 3 }),
    resources,
    mounts: fc.array(fc.nat({ max: 7 }), { maxLength: 3 }),
    livenessProbe: probe('liveness'),
    readinessProbe: probe('readiness'),
    lifecycle: fc.record({ postStart: handler, preStop: handler }, { requiredKeys: [] }),
    sidecar: fc.boolean(),
    securityContext: fc.record({ runAsUser: nat, allowPrivilegeEscalation: fc.constant(false) }),
  },
  { requiredKeys: ['image', 'resources', 'mounts', 'sidecar'] },
);

function assemble(body: ContainerBody, name: string, volumes: readonly string[], init: boolean): Obj {
  const { mounts, sidecar, livenessProbe, readinessProbe, lifecycle, ...rest } = body;
  // A plain init container runs to completion: it may have neither probes nor hooks.
  const probesAllowed = !init || sidecar;
  const mounted = volumes.length === 0 ? [] : [...new Set(mounts.map((i) => volumes[i % volumes.length]!))];
  return {
    ...rest,
    name,
    volumeMounts: mounted.map((v, i) => ({ name: v, mountPath: `/mnt/${i}` })),
    ...(probesAllowed && livenessProbe !== undefined && { livenessProbe, startupProbe: livenessProbe }),
    ...(probesAllowed && readinessProbe !== undefined && { readinessProbe }),
    ...(probesAllowed && lifecycle !== undefined && { lifecycle }),
    ...(init && sidecar && { restartPolicy: 'Always' }),
  };
}

const volumeSource = fc.oneof(fc.constant({ emptyDir: {} }), fc.record({ hostPath: fc.record({ path: label.map((l) => `/srv/${l}`), type: fc.constantFrom('DirectoryOrCreate', 'Directory', '') }) }));

const toleration = fc.oneof(
  fc.constant({ operator: 'Exists' }),
  fc.record({ key: qualifiedKey, operator: fc.constant('Equal'), value: labelValue, effect: fc.constantFrom('NoSchedule', 'PreferNoSchedule') }),
  fc.record({ key: qualifiedKey, operator: fc.constant('Exists'), effect: fc.constant('NoExecute'), tolerationSeconds: nat }),
);

/** A pod the API server accepts; every field the decoder knows appears in some runs. */
export const validPod: fc.Arbitrary<Obj> = fc
  .record({
    base: label,
    containers: fc.array(containerBody, { minLength: 1, maxLength: 2 }),
    initContainers: fc.array(containerBody, { maxLength: 1 }),
    volumes: fc.array(volumeSource, { maxLength: 3 }),
    podName: subdomain,
    namespace: fc.option(label, { nil: undefined }),
    labels: labelMap,
    annotations: fc.dictionary(qualifiedKey, fc.string({ maxLength: 40 }), { maxKeys: 3 }),
    nodeSelector: fc.option(labelMap, { nil: undefined }),
    restartPolicy: fc.constantFrom('Always', 'OnFailure', 'Never', undefined),
    dnsPolicy: fc.constantFrom('ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None', undefined),
    nameservers: fc.array(fc.oneof(fc.ipV4(), fc.ipV6()), { minLength: 1, maxLength: 3 }),
    searches: fc.array(subdomain, { maxLength: 4 }),
    hostAliases: fc.array(fc.record({ ip: fc.oneof(fc.ipV4(), fc.ipV6()), hostnames: fc.array(subdomain, { maxLength: 2 }) }), { maxLength: 2 }),
    tolerations: fc.array(toleration, { maxLength: 3 }),
    sysctls: fc.uniqueArray(sysctl, { maxLength: 3 }),
    hostNetwork: fc.boolean(),
    grace: fc.option(fc.nat({ max: 10_000 }), { nil: undefined }),
    deadline: fc.option(fc.integer({ min: 1, max: 2147483647 }), { nil: undefined }),
  })
  .map((p): Obj => {
    const volumeNames = p.volumes.map((_, i) => `${p.base}-v${i}`);
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: p.podName, ...(p.namespace && { namespace: p.namespace }), labels: p.labels, annotations: p.annotations },
      spec: {
        containers: p.containers.map((c, i) => assemble(c, `${p.base}-${i}`, volumeNames, false)),
        ...(p.initContainers.length > 0 && { initContainers: p.initContainers.map((c, i) => assemble(c, `${p.base}-i${i}`, volumeNames, true)) }),
        ...(p.volumes.length > 0 && { volumes: p.volumes.map((v, i) => ({ name: volumeNames[i], ...v })) }),
        ...(p.restartPolicy && { restartPolicy: p.restartPolicy }),
        ...(p.dnsPolicy && { dnsPolicy: p.dnsPolicy }),
        dnsConfig: { nameservers: p.nameservers, searches: p.searches, options: [{ name: 'ndots', value: '2' }] },
        hostAliases: p.hostAliases,
        tolerations: p.tolerations,
        ...(p.nodeSelector && { nodeSelector: p.nodeSelector }),
        securityContext: { sysctls: p.sysctls.map((name) => ({ name, value: '1' })), runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
        hostNetwork: p.hostNetwork,
        ...(p.grace !== undefined && { terminationGracePeriodSeconds: p.grace }),
        ...(p.deadline !== undefined && { activeDeadlineSeconds: p.deadline }),
      },
    };
  });

const HUGE = 'x'.repeat(1 << 20);
/** Strings chosen to break naive checks: empty, blank, control characters, unicode, path escapes, number-like, huge. */
export const weirdString = fc.oneof(
  fc.constantFrom('', ' ', '\t', '\u0000', '\n', 'a\nb', '💥', 'é', '..', '../../etc', '/', '-1', '0x10', '1e309', 'NaN', 'null', '__proto__', 'constructor', 'toString', 'a'.repeat(64), 'a'.repeat(254), HUGE, `${'a.'.repeat(5000)}!`, `${'a-'.repeat(5000)}!`),
  fc.string({ maxLength: 30, unit: 'binary' }),
);

/** Numbers at and beyond the edges of the API's int32 and int64 fields. */
export const weirdNumber = fc.oneof(
  fc.constantFrom(-1, 0, -0, 0.5, 65536, 2 ** 31 - 1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, Number.MAX_VALUE, Number.MIN_VALUE, Number.NaN, Infinity, -Infinity),
  fc.double(),
  fc.integer(),
);

function nested(depth: number, array: boolean): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = array ? [v] : { a: v };
  return v;
}

// fast-check prints counterexamples through fc.toStringMethod; without it, printing these would throw too.
function throwingGetter(): Obj {
  const o = Object.defineProperty({}, 'name', { enumerable: true, get: () => { throw new Error('getter'); } });
  return Object.defineProperty(o, fc.toStringMethod, { value: () => '{ get name() { throw } }' });
}

function throwingProxy(): object {
  return new Proxy({}, {
    ownKeys: () => { throw new Error('proxy'); },
    get: (_t, key) => {
      if (key === fc.toStringMethod) return () => 'Proxy { throws }';
      throw new Error('proxy');
    },
  });
}

function sparse(): unknown[] {
  const a: unknown[] = [];
  a[5] = { name: 'c', image: 'i' };
  return a;
}

/** What no YAML or JSON parser yields, though a caller holding an `unknown` might pass it. */
export const nonPlain: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(new Date(0)),
  fc.constant(new Date(Number.NaN)),
  fc.constant(new Map([['name', 'c']])),
  fc.constant(new Set(['c'])),
  fc.constant(() => 'c'),
  fc.constant(Symbol('c')),
  fc.bigInt(),
  fc.constant(sparse()),
  fc.constant(new Uint8Array(4)),
  fc.constant(Object.create(null) as unknown),
  fc.constant(new String('c')),
  fc.constant(null),
  fc.constant(undefined),
  fc.constant(0).map(() => throwingGetter()),
  fc.constant(0).map(() => throwingProxy()),
);

/** Objects whose keys collide with Object.prototype, built by JSON.parse as a YAML/JSON parser would. */
export const protoKeyed = fc
  .tuple(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'), fc.oneof(fc.string({ maxLength: 5 }), fc.constant({ polluted: true }), fc.constant(['x'])))
  .map(([k, v]) => JSON.parse(`{${JSON.stringify(k)}:${JSON.stringify(v)},"name":"c","image":"i"}`) as unknown);

/** A wrong value for any slot: wrong type, out of range, weird text, deep, non-plain. */
export const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: weirdString },
  { weight: 3, arbitrary: weirdNumber },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: nonPlain },
  { weight: 1, arbitrary: protoKeyed },
  { weight: 1, arbitrary: fc.record({ depth: fc.integer({ min: 100, max: 20_000 }), array: fc.boolean() }).map(({ depth, array }) => nested(depth, array)) },
);

type Slot = { parent: Obj | unknown[]; key: string | number };

/** Every object property and array element of a plain JSON tree. */
export function slots(root: unknown): Slot[] {
  const out: Slot[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach((x, i) => (out.push({ parent: v, key: i }), walk(x)));
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push({ parent: v as Obj, key: k }), walk(x);
  };
  walk(root);
  return out;
}

export type Mutation = { kind: 'replace'; value: unknown } | { kind: 'delete' } | { kind: 'rename'; to: string };

/** A valid pod with one slot replaced, deleted or renamed; `where` picks the slot. */
export const mutatedPod: fc.Arbitrary<{ pod: Obj; where: number; mutation: Mutation }> = fc.record({
  pod: validPod,
  where: fc.nat(),
  mutation: fc.oneof(
    { weight: 6, arbitrary: wrongValue.map((value): Mutation => ({ kind: 'replace', value })) },
    { weight: 1, arbitrary: fc.constant<Mutation>({ kind: 'delete' }) },
    { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'unknownField', '').map((to): Mutation => ({ kind: 'rename', to })) },
  ),
});

/** A copy of the pod with the mutation applied. Copied first: fast-check hands out fc.constant values shared between runs. */
export function mutate({ pod: generated, where, mutation }: { pod: Obj; where: number; mutation: Mutation }): Obj {
  const pod = structuredClone(generated);
  const all = slots(pod);
  const slot = all[where % all.length]!;
  const parent = slot.parent as Record<string | number, unknown>;
  if (mutation.kind === 'replace') parent[slot.key] = mutation.value;
  else if (mutation.kind === 'delete') {
    if (Array.isArray(parent)) parent.splice(slot.key as number, 1);
    else delete parent[slot.key];
  } else if (!Array.isArray(parent)) {
    const v = parent[slot.key];
    delete parent[slot.key];
    Object.defineProperty(parent, mutation.to, { value: v, enumerable: true, configurable: true, writable: true });
  }
  return pod;
}

/** YAML text that yields values JSON cannot: explicit tags, special floats, merge keys, aliases. */
export const yamlToken: fc.Arbitrary<{ text: string; key: boolean }> = fc.oneof(
  fc.constantFrom('~', 'null', 'yes', 'off', '.inf', '-.inf', '.nan', '0x1F', '0o17', '1e400', '-0', '12345678901234567890123', '2001-12-14', "'0'", '!!str 5', '!!int "7"', '!!float 1', '!!binary aGVsbG8=', '!!timestamp 2001-12-14t21:59:43.10-05:00', '!!set {a, b}', '!!omap [a: 1]', '!!pairs [a: 1]', '{}', '[]', '[~]', '{a: [b, {c: d}]}', '*nope', '&x 1', '"\\u0000"', '"\\ud800"', '!custom x').map((text) => ({ text, key: false })),
  fc.constantFrom('__proto__', 'constructor', '<<', '? [a]', '1', '~', '!!binary aGk=').map((text) => ({ text, key: true })),
);

/** Small valid manifests with a scalar of every kind the decoder reads, for the YAML-level property. */
export const SMALL_PODS: readonly Obj[] = [
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', labels: { app: 'web' }, annotations: { 'example.com/note': 'x' } },
    spec: {
      containers: [{ name: 'c', image: 'busybox:1', ports: [{ containerPort: 80, name: 'http' }], env: [{ name: 'A', value: '1' }], resources: { limits: { cpu: '1', memory: '64Mi' } }, livenessProbe: { httpGet: { port: 'http', path: '/' }, periodSeconds: 5, successThreshold: 1 } }],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 5,
      hostNetwork: false,
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'tick', namespace: 'kube' },
    spec: {
      initContainers: [{ name: 'init', image: 'i:1', command: ['true'] }],
      containers: [{ name: 'c', image: 'i:1', volumeMounts: [{ name: 'v', mountPath: '/v' }], securityContext: { runAsUser: 1000 } }],
      volumes: [{ name: 'v', hostPath: { path: '/srv/v', type: 'DirectoryOrCreate' } }],
      securityContext: { sysctls: [{ name: 'net.core.somaxconn', value: '1024' }] },
      tolerations: [{ key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule' }],
      hostAliases: [{ ip: '10.0.0.1', hostnames: ['db.local'] }],
      dnsPolicy: 'None',
      dnsConfig: { nameservers: ['1.1.1.1'], searches: ['example.com'] },
      nodeSelector: { disk: 'ssd' },
    },
  },
];
