// Checks the kubelet runs at start (in run(), not in config validation) that
// need neither the runtime nor the API server. --print-config runs them too,
// so an operator learns about a bad threshold before a restart, not after.
import { isIP } from 'node:net';
import type { CheckContext } from './check-context.js';
import { configSpec } from './options.js';
import { redactEncoded } from './redact.js';
import { buildThresholds } from './values/eviction.js';
import { validatePercentMap, validateResourceList, validateReservedMemory } from './values/resources.js';
import { checkTls } from './values/tls.js';
import { parseByteSize, parseQuantity } from './values/quantity.js';
import { parseCpuSet } from './values/cpuset.js';
import { validateNodeLabels } from './values/labels.js';
import { validateTaint } from './values/taints.js';

const RESERVABLE = ['cpu', 'memory', 'ephemeral-storage', 'pid'] as const;

export function startupChecks(c: CheckContext, cpuCount: () => number | undefined = () => undefined): void {
  const { cfg, flags } = c;

  for (const p of ['systemReserved', 'platformReserved'] as const) {
    for (const m of validateResourceList(cfg[p], RESERVABLE)) c.problem([p], m);
  }

  const ev = buildThresholds({
    hard: cfg.evictionHard,
    soft: cfg.evictionSoft,
    softGracePeriod: cfg.evictionSoftGracePeriod,
    minimumReclaim: cfg.evictionMinimumReclaim,
    enforceNodeAllocatable: cfg.enforceNodeAllocatable,
  });
  for (const m of ev.problems) {
    const field = evictionField(m);
    c.problem([field], m.startsWith(field) ? m.slice(field.length).replace(/^\[([^\]]+)\]:/, 'signal $1:').trim() : m);
  }
  for (const w of ev.warnings) c.warn(w);

  for (const m of validateReservedMemory(cfg.reservedMemory)) c.problem(['reservedMemory'], m);
  checkQosReserved(c);

  const tls = checkTls(cfg.tlsMinVersion, cfg.tlsCipherSuites);
  for (const m of tls.problems) c.problem([m.includes('version') ? 'tlsMinVersion' : 'tlsCipherSuites'], m);
  for (const w of tls.warnings) c.warn(w);
  if ((cfg.tlsCertFile === '') !== (cfg.tlsPrivateKeyFile === '')) {
    c.problem([cfg.tlsCertFile === '' ? 'tlsCertFile' : 'tlsPrivateKeyFile'], 'tlsCertFile (--tls-cert-file) and tlsPrivateKeyFile (--tls-private-key-file) must be given together');
  }

  checkCpuManager(c, cpuCount);
  checkTopologyManagerOptions(c);
  checkMemoryManager(c);

  for (const [i, t] of cfg.registerWithTaints.entries()) for (const m of validateTaint(t)) c.problem(['registerWithTaints'], `[${i}]: ${m}`);
  for (const m of validateNodeLabels(flags.nodeLabels)) c.problem(['nodeLabels'], m);
  checkNodeIP(c);

  for (const p of ['address', 'healthzBindAddress'] as const) {
    if (isIP(cfg[p]) === 0) c.problem([p], `"${cfg[p]}" is not a valid IP address`);
  }
  for (const ip of cfg.clusterDNS) if (isIP(ip) === 0) c.problem(['clusterDNS'], `"${ip}" is not a valid IP address`);
  if (cfg.podCIDR !== '' && !isCidr(cfg.podCIDR)) c.problem(['podCIDR'], `"${cfg.podCIDR}" is not a valid CIDR`);
  if (cfg.staticPodURL !== '' && !isHttpUrl(cfg.staticPodURL)) c.problem(['staticPodURL'], `"${String(redactEncoded(configSpec.staticPodURL, cfg.staticPodURL))}" is not an http(s) URL`);

  try {
    if (parseQuantity(cfg.containerLogMaxSize).value < 0) c.warn('containerLogMaxSize is negative: container log rotation is disabled');
  } catch (e) {
    c.problem(['containerLogMaxSize'], (e as Error).message);
  }
  try {
    parseByteSize(cfg.logging.options.json.infoBufferSize);
  } catch (e) {
    c.problem(['logging.options.json.infoBufferSize'], (e as Error).message);
  }
  for (const p of ['containerRuntimeEndpoint', 'imageServiceEndpoint'] as const) checkEndpoint(c, p);
  checkStandaloneAuth(c);
}

function evictionField(message: string): string {
  const m = /^(evictionHard|evictionSoft|evictionSoftGracePeriod|evictionMinimumReclaim)\b/.exec(message);
  return m?.[1] ?? 'evictionHard';
}

function checkQosReserved(c: CheckContext): void {
  for (const p of validatePercentMap(c.cfg.qosReserved)) c.problem(['qosReserved'], p);
}

function reservedCpu(c: CheckContext): number {
  if (c.cfg.reservedSystemCPUs !== '') {
    try {
      return parseCpuSet(c.cfg.reservedSystemCPUs).length;
    } catch {
      return 0; // already reported by validation
    }
  }
  let total = 0;
  for (const list of [c.cfg.systemReserved, c.cfg.platformReserved]) {
    const cpu = list['cpu'];
    if (cpu === undefined) continue;
    try {
      total += parseQuantity(cpu).value;
    } catch {
      // reported by validateResourceList
    }
  }
  return total;
}

/**
 * The kubelet's CPU manager policy options (cpumanager/policy_options.go,
 * 1.28): known names only, boolean values, and the gates of their stage.
 */
const CPU_MANAGER_OPTIONS: ReadonlyMap<string, 'alpha' | 'beta'> = new Map([
  ['full-pcpus-only', 'beta'],
  ['distribute-cpus-across-numa', 'alpha'],
  ['align-by-socket', 'alpha'],
]);
/** topologymanager/policy_options.go: prefer-closest-numa-nodes is a beta option in 1.28. */
const TOPOLOGY_MANAGER_OPTIONS: ReadonlyMap<string, 'alpha' | 'beta'> = new Map([['prefer-closest-numa-nodes', 'beta']]);

function checkPolicyOptions(c: CheckContext, path: 'cpuManagerPolicyOptions' | 'topologyManagerPolicyOptions', known: ReadonlyMap<string, 'alpha' | 'beta'>, gates: { all: string; alpha: string; beta: string }): void {
  const options = c.cfg[path];
  const names = Object.keys(options);
  if (names.length === 0) return;
  if (!c.gates.enabled(gates.all)) c.problem([path], `policy options need the feature gate ${gates.all}, which is disabled`);
  for (const name of names) {
    const stage = known.get(name);
    if (stage === undefined) {
      c.problem([path], `unknown option "${name}" (known: ${[...known.keys()].join(', ')})`);
      continue;
    }
    const gate = stage === 'alpha' ? gates.alpha : gates.beta;
    if (!c.gates.enabled(gate)) c.problem([path], `option "${name}" is ${stage}-level and needs the feature gate ${gate}, which is disabled`);
    const value = options[name]!;
    if (!/^(1|t|T|TRUE|true|True|0|f|F|FALSE|false|False)$/.test(value)) c.problem([path], `option "${name}": "${value}" is not a boolean (use true or false)`);
  }
}

function checkCpuManager(c: CheckContext, cpuCount: () => number | undefined): void {
  if (c.cfg.cpuManagerPolicy !== 'static') {
    if (Object.keys(c.cfg.cpuManagerPolicyOptions).length > 0) c.problem(['cpuManagerPolicyOptions'], 'options are only accepted with the "static" CPU manager policy');
    return;
  }
  checkPolicyOptions(c, 'cpuManagerPolicyOptions', CPU_MANAGER_OPTIONS, { all: 'CPUManagerPolicyOptions', alpha: 'CPUManagerPolicyAlphaOptions', beta: 'CPUManagerPolicyBetaOptions' });
  const reserved = reservedCpu(c);
  if (reserved <= 0) {
    c.problem(['cpuManagerPolicy'], 'the "static" policy needs a CPU reservation greater than zero: set cpu in systemReserved (--system-reserved) or platformReserved (--platform-reserved), or reservedSystemCPUs (--reserved-cpus)');
    return;
  }
  // Reserving every CPU is allowed (the shared pool keeps them); only more than the node has is not.
  const count = cpuCount();
  if (count !== undefined && Math.ceil(reserved) > count) {
    c.problem(['cpuManagerPolicy'], `the "static" policy cannot reserve ${reserved} CPUs on a node with ${count} online`);
  }
}

function checkTopologyManagerOptions(c: CheckContext): void {
  checkPolicyOptions(c, 'topologyManagerPolicyOptions', TOPOLOGY_MANAGER_OPTIONS, { all: 'TopologyManagerPolicyOptions', alpha: 'TopologyManagerPolicyAlphaOptions', beta: 'TopologyManagerPolicyBetaOptions' });
}

/**
 * On Linux the runtime is reached over a unix socket (`unix:///path`). A bare
 * absolute path still works, as in the kubelet, with a deprecation warning;
 * tcp and npipe endpoints are Windows-only.
 */
function checkEndpoint(c: CheckContext, p: 'containerRuntimeEndpoint' | 'imageServiceEndpoint'): void {
  const v = c.cfg[p];
  if (v === '') return;
  if (/^unix:\/\/\/./.test(v)) return;
  if (v.startsWith('/')) {
    c.warn(`${p}: "${v}" has no URL scheme; it is used as "unix://${v}", which is deprecated: write the full URL`);
    return;
  }
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(v)?.[1]?.toLowerCase();
  if (scheme === 'tcp' || scheme === 'npipe') c.problem([p], `"${v}": ${scheme} endpoints are only supported on Windows; on Linux use a unix socket, unix:///path/to/socket`);
  else if (scheme === 'unix') c.problem([p], `"${v}" is not a supported endpoint: the socket path must be absolute (unix:///path/to/socket)`);
  else c.problem([p], `"${v}" is not a supported endpoint: use unix:///path/to/socket`);
}

function memoryOf(map: Readonly<Record<string, string>>, key: string): number {
  const v = map[key];
  if (v === undefined || v.endsWith('%')) return 0;
  try {
    return parseQuantity(v).value;
  } catch {
    return 0;
  }
}

function checkMemoryManager(c: CheckContext): void {
  const { cfg } = c;
  if (cfg.memoryManagerPolicy !== 'Static') {
    if (cfg.reservedMemory.length > 0 && cfg.memoryManagerPolicy === 'None') c.warn('reservedMemory is ignored with memoryManagerPolicy "None"');
    return;
  }
  const want = memoryOf(cfg.platformReserved, 'memory') + memoryOf(cfg.systemReserved, 'memory') + memoryOf(cfg.evictionHard, 'memory.available');
  let got = 0;
  for (const r of cfg.reservedMemory) got += memoryOf(r.limits, 'memory');
  if (want === 0) c.problem(['memoryManagerPolicy'], 'the "Static" policy needs memory reserved through platformReserved, systemReserved or a hard memory.available eviction threshold');
  else if (got !== want) {
    c.problem(['reservedMemory', 'memoryManagerPolicy'], `the memory reserved per NUMA node adds up to ${got} bytes, but platformReserved + systemReserved + evictionHard[memory.available] is ${want} bytes; with the "Static" memory manager policy they must be equal`);
  }
}

/** --node-ip: one address, or two of different families; `::`/`0.0.0.0` only choose a family. */
function checkNodeIP(c: CheckContext): void {
  const text = c.flags.nodeIP;
  if (text === '') return;
  const ips = text.split(',').map((s) => s.trim());
  const families = ips.map((ip) => isIP(ip));
  if (ips.length > 2) c.problem(['nodeIP'], `"${text}": at most two addresses (one IPv4 and one IPv6) may be given`);
  else if (families.some((f) => f === 0)) c.problem(['nodeIP'], `"${text}" is not a valid IP address or comma-separated dual-stack pair`);
  else if (ips.length === 2 && families[0] === families[1]) c.problem(['nodeIP'], `"${text}": a dual-stack pair needs one IPv4 and one IPv6 address`);
  else if (ips.length === 2 && ips.some((ip) => ip === '::' || ip === '0.0.0.0')) c.problem(['nodeIP'], `"${text}": an unspecified address cannot be part of a dual-stack pair`);
}

function checkStandaloneAuth(c: CheckContext): void {
  // Webhook authentication and authorization ask the API server; without one the kubelet refuses to start.
  if (c.flags.platformconfig !== '') return;
  if (c.cfg.authentication.webhook.enabled) {
    c.problem(['authentication.webhook.enabled'], 'webhook token authentication needs an API server (--platformconfig); in standalone mode set it to false');
  }
  if (c.cfg.authorization.mode === 'Webhook') {
    c.problem(['authorization.mode'], 'Webhook authorization needs an API server (--platformconfig); in standalone mode use AlwaysAllow');
  }
}

function isCidr(text: string): boolean {
  const [ip, bits, ...rest] = text.split('/');
  if (rest.length > 0 || ip === undefined || bits === undefined || !/^\d+$/.test(bits)) return false;
  const family = isIP(ip);
  return family !== 0 && Number(bits) <= (family === 4 ? 32 : 128);
}

function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}
