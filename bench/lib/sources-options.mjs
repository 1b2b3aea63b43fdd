// Command line of bench/sources.mjs: every count and duration of the run, and
// the smaller ones of --quick.
import { join, resolve } from 'node:path';
import { BenchError } from './common.mjs';

function usage() {
  return [
    'usage: node bench/sources.mjs [options]',
    '  --quick              smoke run: 20 pods, 40 bad entries over 4 s, 3 MB body, 3 probes, 10 s recovery',
    '  --pods N             pods running during the measurements, file + URL (default 110)',
    '  --url-pods N         of them from the manifest URL (default 5)',
    '  --bad N              bad entries of load (a) (default 200)',
    '  --load S             length of each phase\'s load window, s (default 10): (a) drops its entries over it, (b) churns over it',
    '  --probes N           new pods timed per phase (default 5)',
    '  --body-mb N          size of the URL body, MB (default 9)',
    '  --http-check S       the agent\'s --http-check-frequency, s (default 2)',
    '  --rounds R           how often the quiet, (a), quiet, (b) sequence runs (default 1)',
    '  --recovery S         RSS watched this long after the last load ends (default 60)',
    '  --probe-timeout S    a new pod must run within this (default 20); a phase stops probing after one timeout',
    '  --settle S           wait after the base pods run, before the first phase (default 10): the agent collects the start\'s garbage',
    '  --settle-max S       longest wait for the agent to go idle between phases (default 45)',
    '  --healthz-interval MS, --healthz-timeout MS   sampling (default 15, 1000)',
    '  --json PATH          results (default bench/results/sources.json; the agent log goes next to it)',
    '  --agent-node-args S, --agent-args S   extra node options / agent flags (not for a result run)',
  ].join('\n');
}

/** `repo`: where the default results directory is. */
export function parseArgs(argv, repo) {
  const o = { quick: false, pods: 110, urlPods: 5, bad: 200, load: 10, probes: 5, bodyMb: 9, httpCheck: 2, rounds: 1, recovery: 60, probeTimeout: 20, settle: 10, settleMax: 45, healthzInterval: 15, healthzTimeout: 1000, json: join(repo, 'bench/results/sources.json'), agentNodeArgs: [], agentArgs: [] };
  const ints = { pods: [1, 300], 'url-pods': [1, 50], bad: [0, 5000], load: [1, 600], probes: [1, 100], 'body-mb': [1, 64], 'http-check': [1, 60], rounds: [1, 10], recovery: [1, 600], 'probe-timeout': [1, 300], settle: [0, 600], 'settle-max': [0, 600], 'healthz-interval': [1, 1000], 'healthz-timeout': [10, 10_000] };
  const camel = (k) => k.replace(/-(\w)/g, (_, c) => c.toUpperCase());
  const set = new Set();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${usage()}\n`);
      process.exit(0);
    }
    if (arg === '--quick') {
      o.quick = true;
      continue;
    }
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!m || !(m[1] in ints || ['json', 'agent-node-args', 'agent-args'].includes(m[1]))) throw new BenchError(`unknown argument "${arg}"\n${usage()}`);
    const v = m[2] ?? argv[++i];
    if (v === undefined) throw new BenchError(`--${m[1]} needs a value`);
    set.add(m[1]);
    if (m[1] === 'json') o.json = resolve(v);
    else if (m[1] === 'agent-node-args') o.agentNodeArgs = v.split(/\s+/).filter(Boolean);
    else if (m[1] === 'agent-args') o.agentArgs = v.split(/\s+/).filter(Boolean);
    else {
      const [min, max] = ints[m[1]];
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || n > max) throw new BenchError(`--${m[1]} must be an integer in [${min}, ${max}], got "${v}"`);
      o[camel(m[1])] = n;
    }
  }
  if (o.quick) {
    const q = { pods: 20, bad: 40, load: 4, probes: 3, 'body-mb': 3, recovery: 10, settle: 3, 'settle-max': 30, 'probe-timeout': 10 };
    for (const [k, v] of Object.entries(q)) if (!set.has(k)) o[camel(k)] = v;
  }
  if (o.urlPods >= o.pods) throw new BenchError('--url-pods must be below --pods');
  return o;
}
