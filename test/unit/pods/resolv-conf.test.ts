// --resolv-conf is read again for each sandbox configuration, as the kubelet
// does; an unreadable file is reported once per problem and pods still run.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolvConfReader } from '../../../src/pods/resolv-conf.js';
import { podDns } from '../../../src/pods/sandbox-config.js';
import { tempDir } from '../../helpers/agent-process.js';
import { staticPod } from '../../helpers/sync-pod.js';
import { testLogger } from '../../helpers/test-logger.js';

const tmp = tempDir('agent-resolv-');
afterAll(() => tmp.cleanup());

describe('resolvConfReader', () => {
  it('--resolv-conf="" reads nothing', () => {
    const log = testLogger();
    expect(resolvConfReader('', log)()).toBeUndefined();
    expect(log.records).toEqual([]);
  });

  it('sees each edit of the file; a missing file is reported once and its return once', () => {
    const path = join(tmp.dir, 'resolv.conf');
    writeFileSync(path, 'nameserver 192.0.2.53\nsearch corp.example\n');
    const log = testLogger();
    const read = resolvConfReader(path, log);
    expect(read()).toEqual({ servers: ['192.0.2.53'], searches: ['corp.example'], options: [] });

    // What DHCP or systemd-resolved does to the file: the next pod gets the new resolver.
    writeFileSync(path, 'nameserver 198.51.100.7\nsearch lab.example\noptions ndots:2\n');
    const node = { clusterDNS: [], clusterDomain: '', host: read, nodeIPs: ['192.0.2.10'] };
    expect(podDns(staticPod({}), node)).toEqual({ servers: ['198.51.100.7'], searches: ['lab.example'], options: ['ndots:2'] });

    rmSync(path);
    expect(read()).toBeUndefined();
    expect(read()).toBeUndefined();
    expect(podDns(staticPod({}), node)).toEqual({ servers: ['127.0.0.1'], searches: ['.'], options: [] });
    expect(log.records.map((r) => [r.level, r.msg, r.fields['path']])).toEqual([
      ['warn', 'Could not read the resolver configuration; pods of dnsPolicy Default get a loopback resolver, as with --resolv-conf=""', path],
    ]);

    writeFileSync(path, 'nameserver 192.0.2.54\n');
    expect(read()?.servers).toEqual(['192.0.2.54']);
    expect(read()?.servers).toEqual(['192.0.2.54']);
    expect(log.records.map((r) => r.msg)).toHaveLength(2);
    expect(log.records[1]).toMatchObject({ level: 'info', msg: 'The resolver configuration is readable again', fields: { path } });
  });
});
