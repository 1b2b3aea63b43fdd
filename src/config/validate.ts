// Validation of the merged configuration: the kubelet's
// ValidateKubeletConfiguration rules plus the checks its start runs that need
// neither the runtime nor the API server (startup-checks.ts). Every problem
// names the field and its flag; all problems are reported together.
import { AgentError } from '../errors.js';
import { resolveFeatureGates, FeatureGates } from './featuregates.js';
import { configSpec, type AgentConfiguration } from './options.js';
import { flagSpec, type AgentFlags } from './flag-options.js';
import { leaves, type Leaf } from './spec.js';
import { describeSource, type ResolvedConfig, type Source } from './resolve.js';
import { startupChecks } from './startup-checks.js';
import type { CheckContext } from './check-context.js';
import { parseCpuSet } from './values/cpuset.js';

const configLeaves = new Map(leaves(configSpec).map((l) => [l.path, l]));
const flagOnlyLeaves = new Map(leaves(flagSpec).map((l) => [l.path, l]));

/** `maxPods (--max-pods)`; a flag-only option is named by its flag. */
export function nameOf(path: string): string {
  const c = configLeaves.get(path);
  if (c) return c.opt.flag ? `${path} (--${c.opt.flag})` : path;
  const f = flagOnlyLeaves.get(path);
  return f?.opt.flag ? `--${f.opt.flag}` : path;
}

export type { CheckContext } from './check-context.js';

export interface ValidationResult {
  readonly problems: AgentError[];
  readonly warnings: string[];
  readonly gates: FeatureGates;
}

/**
 * ` (set by --config FILE)` for a value that came from a file, naming the
 * other fields' files too (`; imageGCHighThresholdPercent set by drop-in F`);
 * '' when every value came from a default or a flag (the message names the flag).
 */
export function originOf(paths: readonly string[], provenance: ReadonlyMap<string, Source>): string {
  const parts: string[] = [];
  paths.forEach((p, i) => {
    const s = provenance.get(p);
    if (s === undefined || (s.kind !== 'file' && s.kind !== 'dropin')) return;
    const text = `set by ${describeSource(s)}`;
    parts.push(i === 0 ? text : `${p} ${text}`);
  });
  return parts.length === 0 ? '' : ` (${parts.join('; ')})`;
}

/** Counts the host's CPUs lazily: only the static CPU manager check needs the number. */
export type CpuCount = number | (() => number | undefined);

export function validate(resolved: ResolvedConfig, opts: { cpuCount?: CpuCount } = {}): ValidationResult {
  const problems: AgentError[] = [];
  const warnings: string[] = [];
  const g = resolveFeatureGates(resolved.config.featureGates);
  const gateOrigin = originOf(['featureGates'], resolved.provenance);
  for (const p of g.problems) problems.push(new AgentError('EVALIDATION', `featureGates (--feature-gates): ${p}${gateOrigin}`, { field: 'featureGates', flag: '--feature-gates' }));
  warnings.push(...g.warnings);
  const ctx: CheckContext = {
    cfg: resolved.config,
    flags: resolved.flags,
    gates: new FeatureGates(g.gates),
    provenance: resolved.provenance,
    problem(paths, message) {
      const main = paths[0]!;
      const leaf = configLeaves.get(main) ?? flagOnlyLeaves.get(main);
      const names = paths.map(nameOf);
      problems.push(
        new AgentError('EVALIDATION', `${names[0]}: ${message}${originOf(paths, resolved.provenance)}`, {
          field: configLeaves.has(main) ? main : undefined,
          flag: leaf?.opt.flag ? `--${leaf.opt.flag}` : undefined,
        }),
      );
    },
    warn: (m) => warnings.push(m),
  };
  for (const rule of RULES) rule(ctx);
  const { cpuCount } = opts;
  startupChecks(ctx, typeof cpuCount === 'function' ? cpuCount : () => cpuCount);
  return { problems, warnings, gates: ctx.gates };
}

type Rule = (c: CheckContext) => void;
const num = (c: CheckContext, path: string): number => c.cfg[path as keyof AgentConfiguration] as number;

function range(paths: readonly string[], min: number, max: number, what = ''): Rule {
  return (c) => {
    for (const p of paths) {
      const v = num(c, p);
      if (v < min || v > max) c.problem([p], `must be ${what || (max === Infinity ? `>= ${min}` : `within [${min}, ${max}]`)}, got ${v}`);
    }
  };
}

const port = (p: string, allowZero: boolean): Rule => (c) => {
  const v = num(c, p);
  if (v < (allowZero ? 0 : 1) || v > 65535) c.problem([p], `must be ${allowZero ? '0 (disabled) or ' : ''}between 1 and 65535, got ${v}`);
};

const positiveDuration = (paths: readonly string[], allowZero = false): Rule => (c) => {
  for (const p of paths) {
    const v = num(c, p);
    if (allowZero ? v < 0 : v <= 0) c.problem([p], `must be ${allowZero ? '>= 0' : '> 0'}, got ${String(c.cfg[p as keyof AgentConfiguration])}`);
  }
};

function explicitlySet(c: CheckContext, path: string): boolean {
  return (c.provenance.get(path)?.kind ?? 'default') !== 'default';
}

/** Options whose table entry names a gate may only leave their default while the gate is on. */
const gatedOptions: Rule = (c) => {
  for (const leaf of [...configLeaves.values()]) {
    if (!leaf.opt.gate || c.gates.enabled(leaf.opt.gate)) continue;
    const value = getValue(c.cfg, leaf);
    const { kind } = leaf.opt;
    const same = kind.same ? kind.same(value as never, leaf.opt.default as never) : JSON.stringify(value) === JSON.stringify(leaf.opt.default);
    if (!same) {
      c.problem([leaf.path], `needs the feature gate ${leaf.opt.gate}, which is disabled`);
    }
  }
};

function getValue(cfg: AgentConfiguration, leaf: Leaf): unknown {
  let cur: unknown = cfg;
  for (const k of leaf.keys) cur = (cur as Record<string, unknown>)[k];
  return cur;
}

const ENFORCEMENT = ['none', 'pods', 'system-reserved', 'platform-reserved'];
const INT32_MAX = 2147483647;
/** The only value --show-hidden-metrics-for-version accepts: the minor release before the emulated 1.28. */
export const PREVIOUS_MINOR = '1.27';

export const RULES: readonly Rule[] = [
  range(['nodeLeaseDurationSeconds'], 1, Infinity, '> 0'),
  range(['eventBurst', 'eventRecordQPS', 'platformAPIBurst', 'platformAPIQPS', 'registryBurst', 'registryPullQPS', 'maxOpenFiles', 'maxPods', 'podsPerCore'], 0, Infinity),
  (c) => {
    // A pointer in v1beta1: 0 here means "unset"; a value a file gave must be positive.
    const v = c.cfg.maxParallelImagePulls;
    if (explicitlySet(c, 'maxParallelImagePulls') && v < 1) c.problem(['maxParallelImagePulls'], `must be a positive number, got ${v}`);
  },
  range(['nodeStatusMaxImages'], -1, Infinity),
  range(['oomScoreAdj'], -1000, 1000),
  range(['iptablesMasqueradeBit', 'iptablesDropBit'], 0, 31),
  range(['imageGCHighThresholdPercent', 'imageGCLowThresholdPercent'], 0, 100),
  (c) => {
    if (c.cfg.imageGCLowThresholdPercent > c.cfg.imageGCHighThresholdPercent) {
      c.problem(['imageGCLowThresholdPercent', 'imageGCHighThresholdPercent'], `(${c.cfg.imageGCLowThresholdPercent}) must not be above imageGCHighThresholdPercent (--image-gc-high-threshold) (${c.cfg.imageGCHighThresholdPercent})`);
    }
  },
  port('port', false),
  port('readOnlyPort', true),
  port('healthzPort', true),
  (c) => {
    if (c.cfg.maxParallelImagePulls > 1 && c.cfg.serializeImagePulls) {
      c.problem(['maxParallelImagePulls', 'serializeImagePulls'], `(${c.cfg.maxParallelImagePulls}) above 1 needs serializeImagePulls (--serialize-image-pulls) to be false`);
    }
  },
  (c) => {
    const f = c.cfg.memoryThrottlingFactor;
    if (!(f > 0 && f <= 1)) c.problem(['memoryThrottlingFactor'], `must be within (0, 1], got ${f}`);
  },
  positiveDuration(['syncFrequency', 'fileCheckFrequency', 'httpCheckFrequency', 'nodeStatusUpdateFrequency', 'nodeStatusReportFrequency', 'runtimeRequestTimeout', 'cpuManagerReconcilePeriod']),
  // 0 keeps no unused image for a minimum time (the kubelet only rejects a negative age).
  positiveDuration(['streamingConnectionIdleTimeout', 'evictionPressureTransitionPeriod', 'imageMinimumGCAge'], true),
  (c) => {
    const a = c.cfg.authentication.webhook.cacheTTL;
    const z = c.cfg.authorization.webhook;
    if (a < 0) c.problem(['authentication.webhook.cacheTTL'], 'must be >= 0');
    if (z.cacheAuthorizedTTL < 0) c.problem(['authorization.webhook.cacheAuthorizedTTL'], 'must be >= 0');
    if (z.cacheUnauthorizedTTL < 0) c.problem(['authorization.webhook.cacheUnauthorizedTTL'], 'must be >= 0');
  },
  (c) => {
    if (c.cfg.logging.flushFrequency <= 0) c.problem(['logging.flushFrequency'], 'must be > 0');
  },
  (c) => {
    if (c.cfg.containerRuntimeEndpoint === '') c.problem(['containerRuntimeEndpoint'], 'must not be empty');
  },
  (c) => {
    const p = c.cfg.cpuCFSQuotaPeriod;
    if (p === 100) return;
    if (!c.gates.enabled('CustomCPUCFSQuotaPeriod')) c.problem(['cpuCFSQuotaPeriod'], 'values other than 100ms need the feature gate CustomCPUCFSQuotaPeriod, which is disabled');
    else if (p < 1 || p > 1000) c.problem(['cpuCFSQuotaPeriod'], 'must be between 1ms and 1s, inclusive');
  },
  gatedOptions,
  (c) => {
    const { shutdownGracePeriod: total, shutdownGracePeriodCriticalPods: critical, shutdownGracePeriodByPodPriority: byPrio } = c.cfg;
    if (total !== 0 && total < 1000) c.problem(['shutdownGracePeriod'], 'must be 0 or at least 1s');
    if (critical !== 0 && critical < 1000) c.problem(['shutdownGracePeriodCriticalPods'], 'must be 0 or at least 1s');
    if (critical > total) c.problem(['shutdownGracePeriodCriticalPods', 'shutdownGracePeriod'], 'must be <= shutdownGracePeriod');
    if (byPrio.length > 0 && (total !== 0 || critical !== 0)) c.problem(['shutdownGracePeriodByPodPriority'], 'cannot be combined with shutdownGracePeriod or shutdownGracePeriodCriticalPods');
    if ((total > 0 || critical > 0) && !c.gates.enabled('GracefulNodeShutdown')) c.problem(['shutdownGracePeriod'], 'needs the feature gate GracefulNodeShutdown, which is disabled');
    if (byPrio.length > 0) {
      for (const gate of ['GracefulNodeShutdown', 'GracefulNodeShutdownBasedOnPodPriority']) {
        if (!c.gates.enabled(gate)) c.problem(['shutdownGracePeriodByPodPriority'], `needs the feature gate ${gate}, which is disabled`);
      }
    }
  },
  (c) => {
    const v = c.cfg.showHiddenMetricsForVersion;
    if (v !== '' && v !== PREVIOUS_MINOR) c.problem(['showHiddenMetricsForVersion'], `must be omitted or "${PREVIOUS_MINOR}" (only the previous minor version is allowed), got "${v}"`);
  },
  (c) => {
    const p = c.flags.cloudProvider;
    if (p !== '' && p !== 'external') c.problem(['cloudProvider'], `unknown cloud provider "${p}": the agent has no in-tree cloud providers; use "" (none) or "external"`);
  },
  (c) => {
    if (c.cfg.enableSystemLogQuery && !c.cfg.enableSystemLogHandler) c.problem(['enableSystemLogQuery'], 'needs enableSystemLogHandler');
  },
  (c) => {
    if (c.cfg.systemCgroups !== '' && c.cfg.cgroupRoot === '') c.problem(['systemCgroups', 'cgroupRoot'], 'needs cgroupRoot (--cgroup-root) to be set');
  },
  (c) => {
    const levels = c.cfg.enforceNodeAllocatable;
    const seen = new Set<string>();
    for (const l of levels) {
      if (!ENFORCEMENT.includes(l)) c.problem(['enforceNodeAllocatable'], `unknown level "${l}"; must be one of ${ENFORCEMENT.join(', ')}`);
      if (seen.has(l)) c.problem(['enforceNodeAllocatable'], `level "${l}" is given twice`);
      seen.add(l);
    }
    if (levels.includes('none') && levels.length > 1) c.problem(['enforceNodeAllocatable'], '"none" cannot be combined with any other level');
    if (levels.includes('system-reserved') && c.cfg.systemReservedCgroup === '') c.problem(['enforceNodeAllocatable', 'systemReservedCgroup'], 'level "system-reserved" needs systemReservedCgroup (--system-reserved-cgroup)');
    if (levels.includes('platform-reserved') && c.cfg.platformReservedCgroup === '') c.problem(['enforceNodeAllocatable', 'platformReservedCgroup'], 'level "platform-reserved" needs platformReservedCgroup (--platform-reserved-cgroup)');
    // As the 1.28 kubelet: without QoS cgroups the list must be empty ("none" included; pass --enforce-node-allocatable=).
    if (levels.length > 0 && !c.cfg.cgroupsPerQOS) c.problem(['enforceNodeAllocatable', 'cgroupsPerQOS'], 'is not supported unless cgroupsPerQOS (--cgroups-per-qos) is true; with cgroupsPerQOS false it must be empty');
  },
  (c) => {
    if (c.cfg.reservedSystemCPUs === '') return;
    try {
      parseCpuSet(c.cfg.reservedSystemCPUs);
    } catch (e) {
      c.problem(['reservedSystemCPUs'], (e as Error).message);
    }
    if (c.cfg.systemReservedCgroup !== '' || c.cfg.platformReservedCgroup !== '') {
      c.problem(['reservedSystemCPUs'], 'cannot be combined with systemReservedCgroup (--system-reserved-cgroup) or platformReservedCgroup (--platform-reserved-cgroup)');
    }
  },
  (c) => {
    for (const p of ['agentCgroups', 'systemCgroups', 'systemReservedCgroup', 'platformReservedCgroup'] as const) {
      const v = c.cfg[p];
      if (v !== '' && !v.startsWith('/')) c.problem([p], `must be an absolute cgroup name (starting with "/"), got "${v}"`);
    }
    if (c.flags.runtimeCgroups !== '' && !c.flags.runtimeCgroups.startsWith('/')) c.problem(['runtimeCgroups'], `must be an absolute cgroup name (starting with "/"), got "${c.flags.runtimeCgroups}"`);
  },
  (c) => {
    // --runonce starts no server; asking for one explicitly at the same time is a contradiction.
    if (c.cfg.runOnce && c.cfg.enableServer && explicitlySet(c, 'enableServer')) c.problem(['runOnce', 'enableServer'], 'cannot be combined with an explicitly enabled server (--enable-server)');
  },
  (c) => {
    // As the kubelet's run(): contention cannot be watched on a lock that is not taken.
    if (c.flags.exitOnLockContention && c.flags.lockFilePath === '') c.problem(['exitOnLockContention', 'lockFilePath'], 'needs a lock file (--lock-file)');
  },
  (c) => {
    if (c.cfg.containerLogMaxFiles < 2) c.problem(['containerLogMaxFiles'], `must be >= 2, got ${c.cfg.containerLogMaxFiles}`);
  },
  (c) => {
    // component-base: the level is a uint32 in the file, but klog only takes a positive int32.
    const { verbosity, vmodule } = c.cfg.logging;
    if (verbosity > INT32_MAX) c.problem(['logging.verbosity'], `must be <= ${INT32_MAX}, got ${verbosity}`);
    vmodule.forEach((e, i) => {
      if (e.verbosity > INT32_MAX) c.problem(['logging.vmodule'], `[${i}] (${e.filePattern}): verbosity must be <= ${INT32_MAX}, got ${e.verbosity}`);
      if (e.filePattern === '') c.problem(['logging.vmodule'], `[${i}]: filePattern must not be empty`);
      else if (/[=,]/.test(e.filePattern)) c.problem(['logging.vmodule'], `[${i}]: filePattern "${e.filePattern}" must not contain "=" or ","`);
    });
  },
  (c) => {
    const { format, vmodule } = c.cfg.logging;
    if (format === 'json' && !c.gates.enabled('LoggingBetaOptions')) c.problem(['logging.format'], 'format "json" needs the feature gate LoggingBetaOptions, which is disabled');
    if (format !== 'text' && vmodule.length > 0) c.problem(['logging.vmodule'], `is only supported with the text log format, not "${format}"`);
  },
];

export { explicitlySet };
