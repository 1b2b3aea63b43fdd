// Run by packaging/bundle.mjs in a fresh process: loads the bundle, drives it
// through the start-up paths operators use (--version, --help, --print-config
// with a config file and drop-ins, a rejected configuration), then writes V8's
// code cache for everything compiled on the way. Output is discarded.
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { CODE_CACHE, loadBundle } from '../bin/bundle-loader.js';

const { exports, script } = loadBundle();
const sink = () => new Writable({ write: (_c, _e, cb) => cb() });
const dir = mkdtempSync(join(tmpdir(), 'agent-warm-'));
try {
  const head = 'apiVersion: agent.config.platform.io/v1beta1\nkind: AgentConfiguration\n';
  const config = join(dir, 'config.yaml');
  writeFileSync(config, `${head}authentication:\n  webhook:\n    enabled: false\nauthorization:\n  mode: AlwaysAllow\nmaxPods: 50\nsyncFrequency: 30s\nevictionHard:\n  memory.available: 200Mi\n`);
  mkdirSync(join(dir, 'conf.d'));
  writeFileSync(join(dir, 'conf.d', '10.conf'), `${head}registerWithTaints:\n  - key: a\n    effect: NoSchedule\n`);
  const io = { env: { AGENT_CONFIG_DROPIN_DIR_ALPHA: '1' }, stdout: sink(), stderr: sink(), forceExit: () => {} };
  const runs = [
    ['--version'],
    ['--help'],
    ['--print-config', '--config', config, '--config-dir', join(dir, 'conf.d'), '--max-pods=60', '--eviction-hard=memory.available<1Gi'],
    ['--print-config', '--max-pods=-1', '--node-labels=platform.io/x=y'],
  ];
  for (const argv of runs) await exports.main(argv, io);
  writeFileSync(CODE_CACHE, script.createCachedData());
} finally {
  rmSync(dir, { recursive: true, force: true });
}
