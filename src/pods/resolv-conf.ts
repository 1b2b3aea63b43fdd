// The node's resolver configuration (--resolv-conf), read again each time a
// sandbox configuration is built, as the kubelet's DNS configurer does: an
// /etc/resolv.conf rewritten by DHCP or systemd-resolved reaches the pods
// started after the change (running sandboxes keep theirs, as with the kubelet).
import { readFileSync } from 'node:fs';
import type { DnsConfig } from '../cri/types.js';
import type { AgentLogger } from '../log/index.js';

/** Parses resolv.conf text: nameserver, search/domain and options lines. */
export function parseResolvConf(text: string): DnsConfig {
  const out: DnsConfig = { servers: [], searches: [], options: [] };
  for (const raw of text.split('\n')) {
    const line = raw.replace(/[#;].*$/, '').trim();
    const [key, ...rest] = line.split(/\s+/);
    if (key === 'nameserver' && rest[0]) out.servers.push(rest[0]);
    else if (key === 'search') out.searches = rest;
    else if (key === 'domain' && rest[0]) out.searches = [rest[0]];
    else if (key === 'options') out.options.push(...rest);
  }
  return out;
}

/**
 * The file's current resolver settings; undefined when `path` is "" or the file
 * cannot be read. The kubelet fails the pod's sandbox then; the agent warns
 * (once per distinct problem, not once per pod) and gives pods of dnsPolicy
 * Default the loopback resolver of --resolv-conf="", so the pods still run.
 */
export function resolvConfReader(path: string, log: AgentLogger): () => DnsConfig | undefined {
  if (path === '') return () => undefined;
  let problem: string | undefined;
  return () => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? String(e);
      if (problem !== code) {
        problem = code;
        log.warn('Could not read the resolver configuration; pods of dnsPolicy Default get a loopback resolver, as with --resolv-conf=""', { path, err: e });
      }
      return undefined;
    }
    if (problem !== undefined) {
      problem = undefined;
      log.info('The resolver configuration is readable again', { path });
    }
    return parseResolvConf(text);
  };
}
