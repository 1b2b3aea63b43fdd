// Public surface of the node folder: facts about the host the agent runs on.
export { nodeName } from './name.js';
export { hostIP } from './ip.js';
export { onlineCpuCount } from './cpus.js';
export { hostNetwork, nodeAddresses, nodeIPProblem, validateNodeIP, type AddressResult, type HostNetwork, type NodeAddress } from './addresses.js';
export { goArch, goOs, readHostInfo, type HostInfo, type HugePages } from './host-info.js';
