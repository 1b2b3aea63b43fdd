// The agent's version comes from package.json (one source of truth); an
// operator may override what is reported with --version=vX.Y.Z.
import { readFileSync } from 'node:fs';

interface PackageJson {
  version: string;
}

/** Set by the bundler (packaging/bundle.mjs) from package.json; absent when running tsc output. */
declare const __AGENT_VERSION__: string | undefined;

let cached: string | undefined;

/** `v0.1.0`: the version built into this copy of the agent. */
export function builtVersion(): string {
  if (cached === undefined && typeof __AGENT_VERSION__ === 'string') cached = `v${__AGENT_VERSION__}`;
  if (cached === undefined) {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as PackageJson;
    cached = `v${pkg.version}`;
  }
  return cached;
}

export interface VersionInfo {
  readonly gitVersion: string;
  readonly major: string;
  readonly minor: string;
  readonly nodeVersion: string;
  readonly platform: string;
}

export function versionInfo(reported: string = builtVersion()): VersionInfo {
  const [major = '0', minor = '0'] = reported.replace(/^v/, '').split('.');
  return { gitVersion: reported, major, minor, nodeVersion: process.version, platform: `${process.platform}/${process.arch}` };
}
