// Options that exist only as flags: they are not part of AgentConfiguration
// (the kubelet keeps them in KubeletFlags). Same table format as options.ts.
import * as k from './kinds.js';
import { opt, type ValueOf } from './spec.js';
import { parseGoBool } from './values/kv.js';
import { ValueError } from '../errors.js';
import type { Kind } from './kinds.js';

/**
 * `--version[=true|false|raw|vX.Y.Z]`: `true` prints and exits; a `v`-prefixed
 * value only sets the version the agent reports, and the agent keeps going.
 */
export const versionFlag: Kind<string> = {
  type: 'version[=true]',
  isBool: true,
  parseFlag: (t) => {
    if (t === 'raw') return 'raw';
    if (t.startsWith('v')) {
      if (!/^v\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?$/.test(t)) {
        throw new ValueError(`invalid version "${t}": expected vMAJOR.MINOR.PATCH, e.g. v1.28.0`);
      }
      return t;
    }
    return parseGoBool(t) ? 'true' : 'false';
  },
  file: (z) => z.string(),
  encode: (v) => v,
  show: () => '',
  isZero: (v) => v === 'false',
};

const removal = ['removal'] as const;

export const flagSpec = {
  config: opt({ kind: k.string, flag: 'config', default: '', section: 'identity', help: 'The agent will load its initial configuration from this file. The path may be absolute or relative; relative paths start at the agent\'s current working directory. Omit this flag to use the built-in default configuration values. Command-line flags override configuration from this file.' }),
  configDir: opt({ kind: k.string, flag: 'config-dir', default: '', section: 'identity', help: 'Path to a directory to specify drop-ins, allows the user to optionally specify additional configs to overwrite what is provided by default and in the --config file. The directory is walked recursively, each directory\'s entries in lexical order, and every *.conf file found is applied in that order. Note: Set the \'AGENT_CONFIG_DROPIN_DIR_ALPHA\' environment variable to specify the directory.' }),
  platformconfig: opt({ kind: k.string, flag: 'platformconfig', default: '', section: 'identity', help: 'Path to a platformconfig file, specifying how to connect to the API server. Providing --platformconfig enables API server mode, omitting --platformconfig enables standalone mode.' }),
  bootstrapPlatformconfig: opt({ kind: k.string, flag: 'bootstrap-platformconfig', default: '', section: 'identity', help: 'Path to a platformconfig file that will be used to get client certificate for the agent. If the file specified by --platformconfig does not exist, the bootstrap platformconfig is used to request a client certificate from the API server. On success, a platformconfig file referencing the generated client certificate and key is written to the path specified by --platformconfig. The client certificate and key file will be stored in the directory pointed by --cert-dir.' }),
  hostnameOverride: opt({ kind: k.string, flag: 'hostname-override', default: '', section: 'identity', help: 'If non-empty, will use this string as identification instead of the actual hostname. If --cloud-provider is set, the cloud provider determines the name of the node (consult cloud provider documentation to determine if and how the hostname is used).' }),
  nodeIP: opt({ kind: k.string, flag: 'node-ip', default: '', section: 'identity', help: "IP address (or comma-separated dual-stack IP addresses) of the node. If unset, the agent will use the node's default IPv4 address, if any, or its default IPv6 address if it has no IPv4 addresses. You can pass '::' to make it prefer the default IPv6 address rather than the default IPv4 address." }),
  nodeLabels: opt({ kind: k.mapStringString, flag: 'node-labels', default: {}, markers: ['alpha'], section: 'identity', help: "<Warning: Alpha feature> Labels to add when registering the node in the cluster.  Labels must be key=value pairs separated by ','. Labels in the 'platform.io' namespace must begin with an allowed prefix (agent.platform.io, node.platform.io) or be in the specifically allowed set (beta.platform.io/arch, beta.platform.io/instance-type, beta.platform.io/os, failure-domain.beta.platform.io/region, failure-domain.beta.platform.io/zone, platform.io/arch, platform.io/hostname, platform.io/os, node.platform.io/instance-type, topology.platform.io/region, topology.platform.io/zone)" }),
  registerSchedulable: opt({ kind: k.bool, flag: 'register-schedulable', default: true, markers: [...removal], removal: 'a future release', section: 'identity', help: 'Register the node as schedulable. Won\'t have any effect if register-node is false.' }),
  cloudProvider: opt({ kind: k.string, flag: 'cloud-provider', default: '', markers: [...removal], removal: '1.24 or later', section: 'identity', help: 'The provider for cloud services. Set to empty string for running with no cloud provider, or to "external" for an external cloud provider; no in-tree providers exist.' }),
  cloudConfig: opt({ kind: k.string, flag: 'cloud-config', default: '', markers: [...removal], removal: '1.24 or later', section: 'identity', help: 'The path to the cloud provider configuration file. Empty string for no configuration file.' }),
  keepTerminatedPodVolumes: opt({ kind: k.bool, flag: 'keep-terminated-pod-volumes', default: false, markers: [...removal], removal: 'a future release', section: 'pods', help: 'Keep terminated pod volumes mounted to the node after the pod terminates.  Can be useful for debugging volume related issues.' }),
  experimentalMounterPath: opt({ kind: k.string, flag: 'experimental-mounter-path', default: 'mount', markers: [...removal], removal: '1.24 or later', section: 'pods', help: '[Experimental] Path of mounter binary. Leave empty to use the default mount.' }),
  runtimeCgroups: opt({ kind: k.string, flag: 'runtime-cgroups', default: '', section: 'runtime', help: 'Optional absolute name of cgroups to create and run the runtime in.' }),
  imageCredentialProviderBinDir: opt({ kind: k.string, flag: 'image-credential-provider-bin-dir', default: '', section: 'runtime', help: 'The path to the directory where credential provider plugin binaries are located.' }),
  imageCredentialProviderConfig: opt({ kind: k.string, flag: 'image-credential-provider-config', default: '', section: 'runtime', help: 'The path to the credential provider plugin config file.' }),
  minimumContainerTTLDuration: opt({ kind: k.duration, flag: 'minimum-container-ttl-duration', default: 0, markers: [...removal], removal: 'a future release', section: 'runtime', help: "Minimum age for a finished container before it is garbage collected.  Examples: '300ms', '10s' or '2h45m'" }),
  maximumDeadContainers: opt({ kind: k.int32, flag: 'maximum-dead-containers', default: -1, markers: [...removal], removal: 'a future release', section: 'runtime', help: 'Maximum number of old instances of containers to retain globally.  Each container takes up some disk space. To disable, set to a negative number.' }),
  maximumDeadContainersPerContainer: opt({ kind: k.int32, flag: 'maximum-dead-containers-per-container', default: 1, markers: [...removal], removal: 'a future release', section: 'runtime', help: 'Maximum number of old instances to retain per container.  Each container takes up some disk space.' }),
  podInfraContainerImage: opt({ kind: k.string, flag: 'pod-infra-container-image', default: 'registry.platform.io/pause:3.9', markers: [...removal], removal: '1.27 (the image garbage collector takes the sandbox image from the runtime)', section: 'runtime', help: 'Specified image will not be pruned by the image garbage collector. CRI implementations have their own configuration to set this image.' }),
  experimentalAllocatableIgnoreEviction: opt({ kind: k.bool, flag: 'experimental-allocatable-ignore-eviction', default: false, markers: [...removal], removal: '1.24 or later', section: 'resources', help: 'When set to \'true\', Hard Eviction Thresholds will be ignored while calculating Node Allocatable.' }),
  rootDirectory: opt({ kind: k.string, flag: 'root-dir', default: '/var/lib/agent', section: 'misc', help: 'Directory path for managing agent files (volume mounts,etc).' }),
  certDirectory: opt({ kind: k.string, flag: 'cert-dir', default: '/var/lib/agent/pki', section: 'auth', help: 'The directory where the TLS certs are located. If --tls-cert-file and --tls-private-key-file are provided, this flag will be ignored.' }),
  lockFilePath: opt({ kind: k.string, flag: 'lock-file', default: '', markers: ['alpha'], section: 'misc', help: '<Warning: Alpha feature> The path to file for the agent to use as a lock file.' }),
  exitOnLockContention: opt({ kind: k.bool, flag: 'exit-on-lock-contention', default: false, section: 'misc', help: 'Whether the agent should exit upon lock-file contention.' }),
  printConfig: opt({ kind: k.bool, flag: 'print-config', default: false, section: 'misc', help: 'Run every check a start runs that needs neither the container runtime nor the API server, print the effective configuration as AgentConfiguration YAML (every field, each with a comment saying where its value came from) and exit.' }),
  printPlan: opt({ kind: k.bool, flag: 'print-plan', default: false, section: 'misc', help: 'Read the pod sources and the container runtime once, print per pod what the sync loop would do now (create a sandbox, pull an image, start or kill a container and why, wait for a volume, reject at admission and why, tear down a pod no source declares) and exit, changing nothing.' }),
  version: opt({ kind: versionFlag, flag: 'version', default: 'false', section: 'misc', help: '--version, --version=raw prints version information and quits; --version=vX.Y.Z... sets the reported version' }),
  help: opt({ kind: k.bool, flag: 'help', short: 'h', default: false, section: 'misc', help: 'help for agent' }),
};

export type AgentFlags = ValueOf<typeof flagSpec>;
