// Checks the kubelet runs at start (in run(), not in config validation) that
// need neither the runtime nor the API server. --print-config runs them too,
// so an operator learns about a bad threshold before a restart, not after.
import { isIP } from 'node:net';
import type { CheckContext } from './validate.js';
import { buildThresholds } from './values/eviction.js';
import { validateResourceList, validateReservedMemory } from './values/resources.js';
import { checkTls } from './values/tls.js';
import { parseByteSize, parseQuantity } from './values/quantity.js';
import { parseCpuSet } from './values/cpuset.js';
import { validateNodeLabels } from './values/labels.js';
import { validateTaint } from './values/taints.js';

const RESERVABLE = ['cpu', 'memory', 'ephemeral-storage', 'pid'] as const;

export function startupChecks(c: CheckContext, cpuCount?: number): void {
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
  checkMemoryManager(c);

  for (const [i, t] of cfg.registerWithTaints.entries()) for (const m of validateTaint(t)) c.problem(['registerWithTaints'], `[${i}]: ${m}`);
  for (const m of validateNodeLabels(flags.nodeLabels)) c.problem(['nodeLabels'], m);
  checkNodeIP(c);

  for (const p of ['address', 'healthzBindAddress'] as const) {
    if (isIP(cfg[p]) === 0) c.problem([p], `"${cfg[p]}" is not a valid IP address`);
  }
  for (const ip of cfg.clusterDNS) if (isIP(ip) === 0) c.problem(['clusterDNS'], `"${ip}" is not a valid IP address`);
  if (cfg.podCIDR !== '' && !isCidr(cfg.podCIDR)) c.problem(['podCIDR'], `"${cfg.podCIDR}" is not a valid CIDR`);
  if (cfg.staticPodURL !== '' && !isHttpUrl(cfg.staticPodURL)) c.problem(['staticPodURL'], `"${cfg.staticPodURL}" is not an http(s) URL`);

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
  for (const p of ['containerRuntimeEndpoint', 'imageServiceEndpoint'] as const) {
    const v = cfg[p];
    if (v !== '' && !/^(unix:\/\/\/.+|tcp:\/\/[^/]+:\d+\/?)$/.test(v)) {
      c.problem([p], `"${v}" is not a supported endpoint: use unix:///path/to/socket or tcp://host:port`);
    }
  }
  checkStandaloneAuth(c);
}

function evictionField(message: string): string {
  const m = /^(evictionHard|evictionSoft|evictionSoftGracePeriod|evictionMinimumReclaim)\b/.exec(message);
  return m?.[1] ?? 'evictionHard';
}

function checkQosReserved(c: CheckContext): void {
  for (const [res, value] of Object.entries(c.cfg.qosReserved)) {
    if (res !== 'memory') c.problem(['qosReserved'], `unsupported resource "${res}": only memory is supported`);
    const m = /^(\d+)%$/.exec(value);
    if (!m || Number(m[1]) > 100) c.problem(['qosReserved'], `${res}: "${value}" is not a percentage between 0% and 100%`);
  }
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

function checkCpuManager(c: CheckContext, cpuCount?: number): void {
  if (c.cfg.cpuManagerPolicy !== 'static') {
    if (Object.keys(c.cfg.cpuManagerPolicyOptions).length > 0) c.problem(['cpuManagerPolicyOptions'], 'options are only accepted with the "static" CPU manager policy');
    return;
  }
  const reserved = reservedCpu(c);
  if (reserved <= 0) {
    c.problem(['cpuManagerPolicy'], 'the "static" policy needs a CPU reservation greater than zero: set cpu in systemReserved (--system-reserved) or platformReserved (--platform-reserved), or reservedSystemCPUs (--reserved-cpus)');
  } else if (cpuCount !== undefined && Math.ceil(reserved) >= cpuCount) {
    c.problem(['cpuManagerPolicy'], `the "static" policy cannot reserve ${reserved} CPUs on a node with ${cpuCount}`);
  }
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
