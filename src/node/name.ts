// The node's name: --hostname-override, else the machine's hostname; the
// kubelet lowercases and trims it, and so do we.
import { hostname } from 'node:os';

export function nodeName(hostnameOverride: string): string {
  const name = (hostnameOverride.trim() === '' ? hostname() : hostnameOverride).trim().toLowerCase();
  return name;
}
