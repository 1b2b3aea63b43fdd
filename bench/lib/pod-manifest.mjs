// The benchmark pod, shared by bench/pods.mjs and bench/sources.mjs: host
// network, local busybox, the minimum grace period. Nothing connects to it.
export const IMAGE = 'localhost/busybox:latest';
// terminationGracePeriodSeconds of every benchmark pod: 2, the kubelet's (and the
// agent's) minimum; a shorter period still gets 2 s before SIGKILL.
export const GRACE_S = 2;

const COMMANDS = {
  sleep: ['sleep', '3600'],
  // A shell that exits on SIGTERM at once: its pod goes away without waiting for the grace period.
  trap: ['sh', '-c', "trap 'exit 0' TERM; sleep 3600 & wait"],
};

/** The pod as YAML text. `trap`: a shell that exits on SIGTERM at once. */
export function manifest(name, kind = 'sleep') {
  const command = kind === 'trap' ? `["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"]` : '["sleep", "3600"]';
  return [
    'apiVersion: v1',
    'kind: Pod',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    '  hostNetwork: true',
    `  terminationGracePeriodSeconds: ${GRACE_S}`,
    '  containers:',
    '  - name: c',
    `    image: ${IMAGE}`,
    '    imagePullPolicy: IfNotPresent',
    `    command: ${command}`,
    '',
  ].join('\n');
}

/** The same pod as an object (for a PodList item or JSON). */
export function podObject(name, kind = 'sleep') {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      hostNetwork: true,
      terminationGracePeriodSeconds: GRACE_S,
      containers: [{ name: 'c', image: IMAGE, imagePullPolicy: 'IfNotPresent', command: COMMANDS[kind] }],
    },
  };
}
