// The pod sources a configuration asks for (--pod-manifest-path,
// --manifest-url), built one way for every caller: the agent runs them for
// good, `--print-plan` until their first answer. Pure construction: nothing
// runs until a component's run().
import type { AgentConfiguration } from '../config/options.js';
import { configSpec } from '../config/options.js';
import { redactEncoded } from '../config/redact.js';
import type { Component } from '../lifecycle/component.js';
import type { AgentLogger } from '../log/index.js';
import type { Pod } from '../pod-model/pod-types.js';
import { createFileSource } from './file.js';
import { createUrlSource } from './http.js';
import type { SourceName } from './merger.js';
import type { ManifestParser } from './parser.js';

type SourceConfig = Pick<AgentConfiguration, 'staticPodPath' | 'staticPodURL' | 'staticPodURLHeader' | 'fileCheckFrequency' | 'httpCheckFrequency'>;

/** The local sources the configuration names, in merge order. */
export function configuredSourceNames(cfg: SourceConfig): SourceName[] {
  const out: SourceName[] = [];
  if (cfg.staticPodPath !== '') out.push('file');
  if (cfg.staticPodURL !== '') out.push('http');
  return out;
}

export interface ConfiguredSourcesInput {
  readonly cfg: SourceConfig;
  readonly node: string;
  /** The SidecarContainers gate, for validation. */
  readonly sidecars: boolean;
  readonly parser: ManifestParser;
  /** The agent's logger: each source logs as its own component. */
  readonly log: AgentLogger;
  /** Receives a source's complete set of pods after each answer. Must not throw. */
  readonly onPods: (source: SourceName, pods: Pod[]) => void;
}

/** One component per configured source, in configuredSourceNames' order. */
export function createConfiguredSources(inp: ConfiguredSourcesInput): Array<{ readonly name: SourceName; readonly component: Component }> {
  const { cfg, node, sidecars, parser, log } = inp;
  return configuredSourceNames(cfg).map((name) => ({
    name,
    component:
      name === 'file'
        ? createFileSource({ path: cfg.staticPodPath, node, sidecars, checkFrequencyMs: cfg.fileCheckFrequency, log: log.child({ component: 'file-source' }), parser, onPods: (pods) => inp.onPods('file', pods) })
        : createUrlSource({ url: cfg.staticPodURL, shownUrl: String(redactEncoded(configSpec.staticPodURL, cfg.staticPodURL)), headers: cfg.staticPodURLHeader, node, sidecars, checkFrequencyMs: cfg.httpCheckFrequency, log: log.child({ component: 'http-source' }), parser, onPods: (pods) => inp.onPods('http', pods) }),
  }));
}
