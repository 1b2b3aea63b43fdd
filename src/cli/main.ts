// `agent [flags]`: parse the command line, resolve and validate the
// configuration, then print it, print help/version, or run the agent.
// Returns the process exit code; bin/agent.js is the only place that exits.
import { AgentError, ValidationError, isAgentError } from '../errors.js';
import { parseFlags } from './flags.js';
import { resolveConfig, type ResolvedConfig } from '../config/resolve.js';
import { validate } from '../config/validate.js';
import { alsoCheck } from '../config/one-pass.js';
import { builtVersion, versionInfo } from '../version.js';
import { onlineCpuCount } from '../node/cpus.js';

export interface MainIO {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  /** Ends the process at once (second SIGTERM/SIGINT). Only bin/ may exit, so it passes this in. */
  readonly forceExit: (signal: NodeJS.Signals) => void;
}

/** The process's streams unless overridden, read on first use: a run that never writes to stderr never creates it. */
function ioWith(overrides: Partial<MainIO>): MainIO {
  return {
    env: overrides.env ?? process.env,
    get stdout() {
      return overrides.stdout ?? process.stdout;
    },
    get stderr() {
      return overrides.stderr ?? process.stderr;
    },
    forceExit:
      overrides.forceExit ??
      (() => {
        process.exitCode = 1;
      }),
  };
}

function reportErrors(io: MainIO, heading: string, errors: readonly AgentError[]): void {
  const lines = errors.length === 1 ? [`Error: ${heading}: ${errors[0]!.message}`] : [`Error: ${heading} (${errors.length} problems):`, ...errors.map((e) => `  - ${e.message}`)];
  io.stderr.write(lines.join('\n') + '\n');
}

function reportWarnings(io: MainIO, warnings: readonly string[]): void {
  for (const w of warnings) io.stderr.write(`Warning: ${w}\n`);
}

export async function main(argv: readonly string[], overrides: Partial<MainIO> = {}): Promise<number> {
  const io = ioWith(overrides);
  let parsed;
  try {
    parsed = parseFlags(argv);
  } catch (e) {
    if (!isAgentError(e)) throw e;
    io.stderr.write(`Error: ${e.message}\nRun 'agent --help' for usage.\n`);
    return 1;
  }
  const given = new Map(parsed.otherFlags.map((g) => [g.leaf.path, g.value]));
  if (given.get('help') === true) {
    const { renderHelp } = await import('./help.js');
    io.stdout.write(renderHelp() + '\n');
    return 0;
  }
  const version = given.get('version');
  if (version === 'true') {
    io.stdout.write(`Agent ${builtVersion()}\n`);
    return 0;
  }
  if (version === 'raw') {
    io.stdout.write(JSON.stringify(versionInfo(), null, 2) + '\n');
    return 0;
  }

  let resolved: ResolvedConfig;
  try {
    resolved = await resolveConfig({ configFlags: parsed.configFlags, otherFlags: parsed.otherFlags, env: io.env });
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    // The file problems, and what the checks find in the fields that did decode, in one report.
    const more = alsoCheck(e, { cpuCount: onlineCpuCount });
    reportWarnings(io, [...parsed.warnings, ...more.warnings]);
    reportErrors(io, 'failed to load the agent configuration', [...e.problems, ...more.problems]);
    return 1;
  }
  const result = validate(resolved, { cpuCount: onlineCpuCount });
  const warnings = [...parsed.warnings, ...resolved.warnings, ...result.warnings];
  if (result.problems.length > 0) {
    reportWarnings(io, warnings);
    reportErrors(io, 'invalid agent configuration', result.problems);
    return 1;
  }
  if (resolved.flags.printConfig) {
    reportWarnings(io, warnings);
    const { printConfig } = await import('../config/print.js');
    io.stdout.write(printConfig(resolved.config, resolved.provenance, resolved.flags));
    return 0;
  }
  if (resolved.flags.printPlan) {
    reportWarnings(io, warnings);
    const { printPlan } = await import('../plan/index.js');
    return printPlan(resolved, io);
  }
  const reported = typeof version === 'string' && version.startsWith('v') ? version : builtVersion();
  // The runtime side (logging, servers, managers) loads only when the agent really runs.
  const { runAgent } = await import('../agent.js');
  return runAgent({ resolved, warnings, version: reported, stdout: io.stdout, stderr: io.stderr, forceExit: io.forceExit });
}
