// `--node-labels`: parsing (cliflag ConfigurationMap) and the kubelet's
// ValidateKubeletFlags rule that keeps the agent from claiming labels in the
// platform's own namespace, which the node authorizer treats as trusted.
import { isLabelValue, isQualifiedName } from './names.js';

const RESERVED_NAMESPACE = 'platform.io';

/** Namespaces (and their subdomains) the agent may set labels in. */
export const AGENT_LABEL_NAMESPACES: readonly string[] = ['agent.platform.io', 'node.platform.io'];

/** Individual labels in the reserved namespace the agent may set. */
export const AGENT_LABELS: readonly string[] = [
  'beta.platform.io/arch',
  'beta.platform.io/instance-type',
  'beta.platform.io/os',
  'failure-domain.beta.platform.io/region',
  'failure-domain.beta.platform.io/zone',
  'node.platform.io/instance-type',
  'platform.io/arch',
  'platform.io/hostname',
  'platform.io/os',
  'topology.platform.io/region',
  'topology.platform.io/zone',
];

/** `a=1,b` → {a:'1', b:''}: the first `=` splits, a missing `=` means an empty value. */
export function parseNodeLabels(text: string): Record<string, string> {
  const out = new Map<string, string>();
  for (const entry of text.split(',')) {
    if (entry === '') continue;
    const at = entry.indexOf('=');
    if (at === -1) out.set(entry.trim(), '');
    else out.set(entry.slice(0, at).trim(), entry.slice(at + 1).trim());
  }
  return Object.fromEntries(out);
}

function namespaceOf(key: string): string {
  const at = key.indexOf('/');
  return at === -1 ? '' : key.slice(0, at);
}

const inNamespace = (ns: string, parent: string): boolean => ns === parent || ns.endsWith(`.${parent}`);

/** True when the agent may set this label even though it is in the reserved namespace. */
export function isAgentLabel(key: string): boolean {
  if (AGENT_LABELS.includes(key)) return true;
  const ns = namespaceOf(key);
  return AGENT_LABEL_NAMESPACES.some((allowed) => inNamespace(ns, allowed));
}

/** Problems with node labels: reserved-namespace keys (one message for all), then key/value syntax. */
export function validateNodeLabels(labels: Readonly<Record<string, string>>): string[] {
  const problems: string[] = [];
  const reserved: string[] = [];
  const syntax: string[] = [];
  for (const [key, value] of Object.entries(labels)) {
    if (inNamespace(namespaceOf(key), RESERVED_NAMESPACE) && !isAgentLabel(key)) reserved.push(key);
    const badKey = isQualifiedName(key);
    if (badKey !== undefined) syntax.push(`invalid label key ${JSON.stringify(key)}: ${badKey}`);
    const badValue = isLabelValue(value);
    if (badValue !== undefined) syntax.push(`invalid value ${JSON.stringify(value)} of label ${JSON.stringify(key)}: ${badValue}`);
  }
  if (reserved.length > 0) {
    problems.push(
      `unknown '${RESERVED_NAMESPACE}' labels [${reserved.sort().join(', ')}]: labels in the '${RESERVED_NAMESPACE}' namespace ` +
        `must begin with an allowed prefix (${AGENT_LABEL_NAMESPACES.join(', ')}) or be in the specifically allowed set (${AGENT_LABELS.join(', ')})`,
    );
  }
  return [...problems, ...syntax];
}
