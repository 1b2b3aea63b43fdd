// The node's addresses as the kubelet reports them without a cloud provider
// (nodestatus NodeAddress): --node-ip (one address or a dual-stack pair),
// checked against the host's interfaces, else the hostname when it is an IP,
// else the address of the default route's interface; then the Hostname
// address. `nodeAddresses` is pure (the host is its input) so tables test it;
// `hostNetwork()` reads the host once per status update.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

export interface NodeAddress {
  readonly type: 'InternalIP' | 'ExternalIP' | 'Hostname';
  readonly address: string;
}

/** The host's interfaces' addresses (as os.networkInterfaces gives them) and the default route's interface per family. */
export interface HostNetwork {
  readonly interfaces: Readonly<Record<string, readonly { readonly address: string; readonly internal: boolean }[] | undefined>>;
  readonly defaultRoute: { readonly v4?: string; readonly v6?: string };
}

export type AddressResult = { readonly ok: true; readonly addresses: NodeAddress[] } | { readonly ok: false; readonly error: string };

const UNSPECIFIED = new Set(['0.0.0.0', '::']);

function expandV6(ip: string): number[] {
  const [head = '', tail] = ip.split('::');
  const part = (s: string): number[] => (s === '' ? [] : s.split(':').map((h) => parseInt(h, 16)));
  const h = part(head);
  const t = tail === undefined ? [] : part(tail);
  return [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
}

/** Why an address cannot be the node's IP (the kubelet's validateNodeIP, less the interface check); undefined when it can. */
export function nodeIPProblem(ip: string): string | undefined {
  const family = isIP(ip);
  if (family === 0) return 'nodeIP must be a valid IP address';
  if (family === 4) {
    const [a = 0, b = 0] = ip.split('.').map(Number);
    if (a === 127) return "nodeIP can't be loopback address";
    if (a >= 224 && a <= 239) return "nodeIP can't be a multicast address";
    if (a === 169 && b === 254) return "nodeIP can't be a link-local unicast address";
    if (ip === '0.0.0.0') return "nodeIP can't be an all zeros address";
    return undefined;
  }
  // An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is judged by nobody here; the interface check still applies.
  if (ip.includes('.')) return undefined;
  const w = expandV6(ip.toLowerCase());
  if (w.every((x, i) => (i === 7 ? x === 1 : x === 0))) return "nodeIP can't be loopback address";
  if (((w[0] ?? 0) & 0xff00) === 0xff00) return "nodeIP can't be a multicast address";
  if (((w[0] ?? 0) & 0xffc0) === 0xfe80) return "nodeIP can't be a link-local unicast address";
  if (w.every((x) => x === 0)) return "nodeIP can't be an all zeros address";
  return undefined;
}

const sameIP = (a: string, b: string): boolean => isIP(a) === isIP(b) && (isIP(a) === 4 ? a === b : expandV6(a).join(':') === expandV6(b).join(':'));

/** The kubelet's full check: the address is usable and assigned to one of the host's interfaces. */
export function validateNodeIP(ip: string, host: HostNetwork): string | undefined {
  const problem = nodeIPProblem(ip);
  if (problem !== undefined) return problem;
  for (const addrs of Object.values(host.interfaces)) for (const a of addrs ?? []) if (sameIP(a.address, ip)) return undefined;
  return `node IP: ${JSON.stringify(ip)} not found in the host's network interfaces`;
}

function defaultAddress(host: HostNetwork, preferV6: boolean): string | undefined {
  const families: Array<4 | 6> = preferV6 ? [6, 4] : [4, 6];
  for (const f of families) {
    const iface = f === 4 ? host.defaultRoute.v4 : host.defaultRoute.v6;
    if (iface === undefined) continue;
    const found = (host.interfaces[iface] ?? []).find((a) => isIP(a.address) === f && nodeIPProblem(a.address) === undefined);
    if (found !== undefined) return found.address;
  }
  for (const f of families) {
    for (const addrs of Object.values(host.interfaces)) {
      const found = (addrs ?? []).find((a) => !a.internal && isIP(a.address) === f && nodeIPProblem(a.address) === undefined);
      if (found !== undefined) return found.address;
    }
  }
  return undefined;
}

/**
 * The node's status.addresses. `nodeIP` is --node-ip as given (syntax already
 * checked at start: one address, or one IPv4 and one IPv6); `hostname` the
 * node's hostname (the override when given). Errors use the kubelet's words.
 */
export function nodeAddresses(nodeIP: string, hostname: string, host: HostNetwork): AddressResult {
  const ips = nodeIP.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const primary = ips[0];
  const secondary = ips[1];
  const specified = primary !== undefined && !UNSPECIFIED.has(primary);
  if (specified) {
    const problem = validateNodeIP(primary, host);
    if (problem !== undefined) return { ok: false, error: `failed to validate nodeIP: ${problem}` };
  }
  if (secondary !== undefined) {
    const problem = validateNodeIP(secondary, host);
    if (problem !== undefined) return { ok: false, error: `failed to validate secondaryNodeIP: ${problem}` };
  }
  let ip: string | undefined;
  if (specified) ip = primary;
  else if (isIP(hostname) !== 0) ip = hostname;
  else ip = defaultAddress(host, primary === '::');
  if (ip === undefined) return { ok: false, error: `can't get ip address of node ${hostname}. error: no usable address on the default route's interface` };
  const addresses: NodeAddress[] = [{ type: 'InternalIP', address: ip }];
  if (specified && secondary !== undefined) addresses.push({ type: 'InternalIP', address: secondary });
  addresses.push({ type: 'Hostname', address: hostname });
  return { ok: true, addresses };
}

/** /proc/net/route → the interface of the IPv4 default route (destination 0, mask 0). */
export function parseDefaultRouteV4(text: string): string | undefined {
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length >= 8 && f[1] === '00000000' && f[7] === '00000000') return f[0];
  }
  return undefined;
}

/** /proc/net/ipv6_route → the interface of the IPv6 default route (::/0 with a gateway or device). */
export function parseDefaultRouteV6(text: string): string | undefined {
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length >= 10 && /^0{32}$/.test(f[0] ?? '') && f[1] === '00' && f[9] !== 'lo') return f[9];
  }
  return undefined;
}

const readOr = (path: string): string => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

/** The host's network as nodeAddresses needs it. Synchronous (two small /proc files); never throws. */
export function hostNetwork(procRoot = '/proc'): HostNetwork {
  const v4 = parseDefaultRouteV4(readOr(`${procRoot}/net/route`));
  const v6 = parseDefaultRouteV6(readOr(`${procRoot}/net/ipv6_route`));
  return { interfaces: networkInterfaces(), defaultRoute: { ...(v4 === undefined ? {} : { v4 }), ...(v6 === undefined ? {} : { v6 }) } };
}
