// The command line, as node operators type it for the kubelet (pflag
// conventions), parsed by a commander program generated from the option table.
import { Command, CommanderError, Option } from 'commander';
import { FlagError, ValueError } from '../errors.js';
import { configSpec } from '../config/options.js';
import { flagSpec } from '../config/flag-options.js';
import { leaves, type Leaf } from '../config/spec.js';
import type { GivenFlag } from '../config/resolve.js';
import { normalizePflagArgv } from '../util/pflag.js';

export interface FlagLeaf extends Leaf {
  /** Which table the option belongs to. */
  readonly table: 'config' | 'flags';
  readonly flag: string;
}

let cachedFlagLeaves: FlagLeaf[] | undefined;

/** Every option that has a flag, config fields first, in table order. */
export function flagLeaves(): FlagLeaf[] {
  cachedFlagLeaves ??= [
    ...leaves(configSpec).map((l) => ({ ...l, table: 'config' as const })),
    ...leaves(flagSpec).map((l) => ({ ...l, table: 'flags' as const })),
  ].flatMap((l) => (l.opt.flag === undefined ? [] : [{ ...l, flag: l.opt.flag }]));
  return cachedFlagLeaves;
}

export interface ParsedFlags {
  readonly configFlags: GivenFlag[];
  readonly otherFlags: GivenFlag[];
  /** One warning per deprecated flag that was given. */
  readonly warnings: string[];
}

/**
 * pflag accepts `--flag_name` for `--flag-name` and `-v=4` for `-v 4`; commander
 * does not, so rewrite those spellings first. Everything after `--` is left alone.
 */
export function normalizeArgv(argv: readonly string[]): string[] {
  return normalizePflagArgv(argv, boolFlagNames());
}

let cachedBools: Set<string> | undefined;
function boolFlagNames(): Set<string> {
  cachedBools ??= new Set(
    flagLeaves()
      .filter((l) => l.opt.kind.isBool)
      .flatMap((l) => [`--${l.flag}`, ...(l.opt.short ? [`-${l.opt.short}`] : [])]),
  );
  return cachedBools;
}

export function deprecationWarning(leaf: FlagLeaf): string | undefined {
  const { opt } = leaf;
  if (opt.markers.includes('cfg') && leaf.table === 'config') {
    return `Flag --${leaf.flag} has been deprecated: set "${leaf.path}" in the file given by --config instead`;
  }
  if (opt.markers.includes('removal')) {
    return `Flag --${leaf.flag} has been deprecated and will be removed in ${opt.removal ?? 'a future release'}`;
  }
  return undefined;
}

function buildProgram(): { program: Command; byAttr: Map<string, FlagLeaf> } {
  const program = new Command('agent')
    .exitOverride()
    .helpOption(false)
    .allowExcessArguments(false)
    .configureOutput({ writeErr: () => {}, writeOut: () => {} });
  const byAttr = new Map<string, FlagLeaf>();
  for (const leaf of flagLeaves()) {
    const { kind } = leaf.opt;
    const names = (leaf.opt.short ? `-${leaf.opt.short}, ` : '') + `--${leaf.flag}`;
    const option = new Option(kind.isBool ? `${names} [value]` : `${names} <value>`);
    if (kind.isBool) option.preset('true');
    option.argParser((text: string, prev: unknown) => {
      try {
        return kind.parseFlag(text, prev as never);
      } catch (e) {
        if (!(e instanceof ValueError)) throw e;
        const field = leaf.table === 'config' ? ` (config field ${leaf.path})` : '';
        throw new FlagError(`invalid argument "${text}" for "--${leaf.flag}" flag${field}: ${e.message}`, {
          flag: `--${leaf.flag}`,
          field: leaf.table === 'config' ? leaf.path : undefined,
          cause: e,
        });
      }
    });
    program.addOption(option);
    byAttr.set(option.attributeName(), leaf);
  }
  return { program, byAttr };
}

/** Parses argv. Throws FlagError naming the flag for anything the agent cannot accept. */
export function parseFlags(argv: readonly string[]): ParsedFlags {
  const { program, byAttr } = buildProgram();
  const normalized = normalizeArgv(argv);
  try {
    program.parse(normalized, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) throw fromCommander(e, program.args, normalized);
    throw e;
  }
  const configFlags: GivenFlag[] = [];
  const otherFlags: GivenFlag[] = [];
  const warnings: string[] = [];
  for (const [attr, value] of Object.entries(program.opts())) {
    const leaf = byAttr.get(attr);
    if (leaf === undefined || value === undefined) continue;
    (leaf.table === 'config' ? configFlags : otherFlags).push({ leaf, value });
    const w = deprecationWarning(leaf);
    if (w) warnings.push(w);
  }
  return { configFlags, otherFlags, warnings };
}

function fromCommander(e: CommanderError, args: readonly string[], argv: readonly string[]): FlagError {
  const msg = e.message.replace(/^error: /, '');
  switch (e.code) {
    case 'commander.unknownOption': {
      const [first, hint] = msg.split('\n');
      const name = (/'([^']+)'/.exec(first ?? '')?.[1] ?? '').replace(/=.*$/, '');
      return new FlagError(`unknown flag: ${name}${hint ? ` ${hint.trim()}` : ''}`, { flag: name, cause: e });
    }
    case 'commander.excessArguments': {
      const list = args.map((a) => `"${a}"`).join(', ');
      return new FlagError(`unexpected argument${args.length === 1 ? '' : 's'} ${list}: the agent takes only flags (a boolean flag takes its value as --flag=false)`, { cause: e });
    }
    case 'commander.optionMissingArgument': {
      // "option '-v, --v <value>' argument missing": name the spelling that was typed.
      const names = (/'([^']+)'/.exec(msg)?.[1] ?? '').replace(/\s*[<[].*$/, '').split(',').map((n) => n.trim()).filter(Boolean);
      const typed = [...argv].reverse().find((a) => names.includes(a));
      const flag = typed ?? names[names.length - 1] ?? '';
      return new FlagError(`flag needs an argument: ${flag}`, { flag, cause: e });
    }
    default:
      return new FlagError(msg, { cause: e });
  }
}
