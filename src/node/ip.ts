// The node's IP, a host fact the pods' status and host-network pods report.
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** The node's IP: the first --node-ip address, else the first non-loopback IPv4, else 127.0.0.1. */
export function hostIP(nodeIP: string): string {
  const first = nodeIP.split(',')[0]?.trim() ?? '';
  if (first !== '' && first !== '::' && first !== '0.0.0.0') return first;
  const wantV6 = first === '::';
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) if (!a.internal && isIP(a.address) === (wantV6 ? 6 : 4)) return a.address;
  }
  return wantV6 ? '::1' : '127.0.0.1';
}
