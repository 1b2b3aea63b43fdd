// Reporting a configuration's problems in one pass: when a file has fields
// that do not decode, the checks still run over the fields that did, so an
// operator sees the type errors, the field checks (`healthzPort: 99999`) and
// the unknown-field warnings together, not one kind per attempt.
import type { AgentError } from '../errors.js';
import { ResolveError } from './resolve.js';
import { validate, type CpuCount } from './validate.js';

export interface MoreFindings {
  readonly problems: readonly AgentError[];
  readonly warnings: readonly string[];
}

/**
 * What else to report after `resolveConfig` failed with `error`: the files'
 * warnings and the validation problems of the partial configuration. Nothing
 * when a file could not be read at all (checking what is left would report
 * problems the operator does not have), nor for a field that itself failed to
 * decode (its value is a default there, not what the file says). Pure apart
 * from the CPU count the checks may ask for; called once, by the CLI.
 */
export function alsoCheck(error: unknown, opts: { cpuCount?: CpuCount } = {}): MoreFindings {
  if (!(error instanceof ResolveError)) return { problems: [], warnings: [] };
  const { partial } = error;
  if (!error.complete) return { problems: [], warnings: partial.warnings };
  const failed = new Set(error.problems.map((p) => p.field).filter((f): f is string => f !== undefined));
  const result = validate(partial, opts);
  const problems = result.problems.filter((p) => p.field === undefined || ![...failed].some((f) => f === p.field || f.startsWith(`${p.field}.`) || p.field!.startsWith(`${f}.`)));
  return { problems, warnings: [...partial.warnings, ...result.warnings] };
}
