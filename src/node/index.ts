// Public surface of the node folder: facts about the host the agent runs on.
export { nodeName } from './name.js';
export { hostIP } from './ip.js';
export { onlineCpuCount } from './cpus.js';
