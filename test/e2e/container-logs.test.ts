// Container log rotation on a real containerd (issue 15.7): a chatty
// container's log under /var/log/pods is rotated at --container-log-max-size,
// at most --container-log-max-files remain (older ones gzipped), and the
// runtime goes on writing to the new live file after ReopenContainerLog.
// The agent checks every 10 s, so this waits for three rotations (~30 s).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { container, holds, pod, podUid, POD_LOGS, running, waitFor, type Node } from './helpers/agent-node.js';
import { skipWithoutRuntime, useRuntime } from './helpers/e2e-env.js';

const skip = skipWithoutRuntime('container log');

const MAX_FILES = 3;
/** About 1.5 KB of log a second: well over the 1 KiB limit at every 10 s check. */
const CHATTY = ['sh', '-c', "trap 'exit 0' TERM; n=0; while true; do for i in 1 2 3 4 5 6 7 8 9 10; do n=$((n+1)); echo \"line $n 0123456789012345678901234567890123456789012345678901234567890123456789\"; done; sleep 1 & wait; done"];
const ROTATED = /^0\.log\.(\d{8}-\d{6})(\.gz)?$/;

describe.skipIf(skip)('container log rotation on a real containerd', () => {
  const env = useRuntime();
  let node: Node;

  it('rotates at the size limit, keeps at most max files with older ones gzipped, and the runtime writes the new file', async () => {
    node = env.newNode();
    node.writeManifest('chatty.yaml', pod('chatty', [container('talk', CHATTY)]));
    const agent = await node.start(['--container-log-max-size=1Ki', `--container-log-max-files=${MAX_FILES}`]);
    const uid = await podUid(agent, 'chatty');
    await running(env.cri, uid, 'talk', 20_000, agent);
    const dir = join(POD_LOGS, `default_chatty-e2e-node_${uid}`, 'talk');

    // Every rotation seen, while never more than MAX_FILES files are there.
    const stamps = new Set<string>();
    let most = 0;
    const files = await waitFor('three rotations', 45_000, () => {
      const now = existsSync(dir) ? readdirSync(dir).sort() : [];
      most = Math.max(most, now.length);
      for (const f of now) {
        const m = ROTATED.exec(f);
        if (m) stamps.add(m[1]!);
      }
      return stamps.size >= 3 && now.some((f) => f.endsWith('.gz')) && now.includes('0.log') ? now : undefined;
    }, agent, 250);
    expect(most).toBeLessThanOrEqual(MAX_FILES);
    expect(files).toHaveLength(MAX_FILES);
    const gz = files.filter((f) => f.endsWith('.gz'));
    const plain = files.filter((f) => ROTATED.test(f) && !f.endsWith('.gz'));
    expect(gz).toHaveLength(1);
    expect(plain).toHaveLength(1);
    // Older is compressed: its timestamp sorts before the plain rotated file's.
    expect(gz[0]! < plain[0]!).toBe(true);
    // Both hold CRI-format lines of the container's output.
    const cri1 = /^\S+ stdout F line \d+ 0123/;
    const unzipped = gunzipSync(readFileSync(join(dir, gz[0]!))).toString().split('\n').filter(Boolean);
    expect(unzipped.length).toBeGreaterThan(0);
    expect(unzipped.every((l) => cri1.test(l))).toBe(true);
    expect(readFileSync(join(dir, plain[0]!), 'utf8').split('\n').filter(Boolean).every((l) => cri1.test(l))).toBe(true);
    // The runtime reopened the live file and goes on writing it.
    const size = statSync(join(dir, '0.log')).size;
    await waitFor('the live log grows', 5_000, () => statSync(join(dir, '0.log')).size > size, agent);
    // The container itself was never restarted for this.
    await holds('the same container keeps running', 1_000, async () => (await running(env.cri, uid, 'talk', 1_000)).restartCount === 0, agent);
  }, 75_000);
});
