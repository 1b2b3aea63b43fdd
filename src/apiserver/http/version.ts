// The /version document: the Kubernetes release this server speaks (1.28),
// the build, and Node's version where Go's would be.
import { builtVersion } from '../../version.js';

export interface ServerVersion {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

const GO_ARCH: Readonly<Record<string, string>> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm' };

export function serverVersion(build: string = builtVersion()): ServerVersion {
  return {
    major: '1',
    minor: '28',
    gitVersion: `v1.28.0-platform.${build.replace(/^v/, '')}`,
    gitCommit: '',
    gitTreeState: '',
    buildDate: '',
    goVersion: process.version,
    compiler: 'node',
    platform: `${process.platform}/${GO_ARCH[process.arch] ?? process.arch}`,
  };
}
