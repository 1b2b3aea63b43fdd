import { describe, expect, it } from 'vitest';
import { normalizeArgv, parseFlags } from '../../../src/cli/flags.js';
import { FlagError } from '../../../src/errors.js';

describe('normalizeArgv (pflag spellings commander lacks)', () => {
  it.each([
    [['--max_pods=3'], ['--max-pods=3']],
    [['--max_pods', '3'], ['--max-pods', '3']],
    [['-v=4'], ['-v', '4']],
    [['--fail-swap-on'], ['--fail-swap-on=true']],
    [['--fail-swap-on=false'], ['--fail-swap-on=false']],
    [['-h'], ['-h', 'true']],
    [['--', '--max_pods'], ['--', '--max_pods']],
    [['--node-labels=a_b=c_d'], ['--node-labels=a_b=c_d']],
  ])('%j → %j', (input, out) => {
    expect(normalizeArgv(input)).toEqual(out);
  });
});

describe('parseFlags', () => {
  it('separates config-backed flags from flag-only options and warns once per deprecated flag', () => {
    const p = parseFlags(['--max-pods=5', '--max-pods=6', '--hostname-override=n', '--cloud-provider=x']);
    expect(p.configFlags.map((g) => [g.leaf.path, g.value])).toEqual([['maxPods', 6]]);
    expect(p.otherFlags.map((g) => [g.leaf.path, g.value])).toEqual([['hostnameOverride', 'n'], ['cloudProvider', 'x']]);
    expect(p.warnings).toHaveLength(2);
  });
  it('map flags replace the default on first use and accumulate after', () => {
    const p = parseFlags(['--eviction-hard=memory.available<1Gi', '--eviction-hard=nodefs.available<5%']);
    expect(p.configFlags[0]!.value).toEqual({ 'memory.available': '1Gi', 'nodefs.available': '5%' });
  });
  it.each([
    [['-v'], '-v'],
    [['--v'], '--v'],
    [['--max-pods'], '--max-pods'],
    [['-v=2', '-v'], '-v'],
  ])('%j: flag needs an argument, naming the spelling typed', (argv, flag) => {
    expect(() => parseFlags(argv)).toThrow(`flag needs an argument: ${flag}`);
    try {
      parseFlags(argv);
    } catch (e) {
      expect(e).toMatchObject({ flag });
    }
  });
  it('integers follow strconv.ParseInt(s, 0, 32); -v stays decimal as in klog', () => {
    expect(parseFlags(['--max-pods=0x10']).configFlags[0]!.value).toBe(16);
    expect(() => parseFlags(['--max-pods= 16'])).toThrow('invalid argument " 16" for "--max-pods" flag');
    expect(() => parseFlags(['-v=0x10'])).toThrow('invalid argument "0x10" for "--v" flag');
  });
  it('errors are FlagErrors naming the flag and field', () => {
    try {
      parseFlags(['--max-pods=x']);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(FlagError);
      expect(e).toMatchObject({ flag: '--max-pods', field: 'maxPods' });
    }
  });
});
