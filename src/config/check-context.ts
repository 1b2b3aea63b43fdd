// What a validation rule sees and how it reports (validate.ts builds it,
// the rules there and in startup-checks.ts receive it). Its own module so the
// two rule files share the type without importing each other.
import type { FeatureGates } from './featuregates.js';
import type { AgentConfiguration } from './options.js';
import type { AgentFlags } from './flag-options.js';
import type { Source } from './resolve.js';

export interface CheckContext {
  readonly cfg: AgentConfiguration;
  readonly flags: AgentFlags;
  readonly gates: FeatureGates;
  readonly provenance: ReadonlyMap<string, Source>;
  /** Reports a problem concerning the given fields (first one is the main subject). */
  problem(paths: readonly string[], message: string): void;
  warn(message: string): void;
}
