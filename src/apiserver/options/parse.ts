// The command line of platform-apiserver (pflag conventions, as operators type
// them for kube-apiserver), parsed by a commander program generated from the
// option table. Pure apart from commander: no files are read here.
import { Command, CommanderError, Option } from 'commander';
import { FlagError, ValueError } from '../../errors.js';
import { apiServerOptions, defaultConfig, optionEntries, type ApiServerConfig, type OptionKey } from './table.js';
import { normalizePflagArgv } from '../../util/pflag.js';

export interface ParsedCommandLine {
  readonly config: ApiServerConfig;
  /** The options given on the command line (the rest are defaults). */
  readonly given: ReadonlySet<OptionKey>;
  readonly help: boolean;
  readonly version: boolean;
}

/** `--flag_name` → `--flag-name`, `-v=4` → `-v 4`, a bare boolean flag → `=true`. Everything after `--` is left alone. */
export function normalizeArgv(argv: readonly string[]): string[] {
  return normalizePflagArgv(argv, new Set(optionEntries().filter((e) => e.opt.kind.isBool).flatMap((e) => [`--${e.opt.flag}`, ...(e.opt.short ? [`-${e.opt.short}`] : [])])));
}

/** Parses argv into a configuration. Throws a FlagError naming the flag for anything it cannot accept. */
export function parseCommandLine(argv: readonly string[]): ParsedCommandLine {
  const program = new Command('platform-apiserver')
    .exitOverride()
    .helpOption(false)
    .allowExcessArguments(false)
    .configureOutput({ writeErr: () => {}, writeOut: () => {} });
  const byAttr = new Map<string, OptionKey | 'help' | 'version'>();
  for (const { key, opt } of optionEntries()) {
    const names = (opt.short ? `-${opt.short}, ` : '') + `--${opt.flag}`;
    const option = new Option(opt.kind.isBool ? `${names} [value]` : `${names} <value>`);
    if (opt.kind.isBool) option.preset('true');
    option.argParser((text: string, prev: unknown) => {
      try {
        return opt.kind.parseFlag(text, prev as never);
      } catch (e) {
        if (!(e instanceof ValueError)) throw e;
        throw new FlagError(`invalid argument "${text}" for "--${opt.flag}" flag: ${e.message}`, { flag: `--${opt.flag}`, cause: e });
      }
    });
    program.addOption(option);
    byAttr.set(option.attributeName(), key);
  }
  const normalized = normalizeArgv(argv);
  try {
    program.parse(normalized, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) throw fromCommander(e, program.args, normalized);
    throw e;
  }
  const config = defaultConfig() as Record<string, unknown>;
  const given = new Set<OptionKey>();
  let help = false;
  let version = false;
  for (const [attr, value] of Object.entries(program.opts())) {
    const key = byAttr.get(attr);
    if (key === undefined || value === undefined) continue;
    if (key === 'help') help = value === true;
    else if (key === 'version') version = value === true;
    else {
      config[key] = value;
      given.add(key);
    }
  }
  return { config: config as ApiServerConfig, given, help, version };
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
      return new FlagError(`unexpected argument${args.length === 1 ? '' : 's'} ${list}: platform-apiserver takes only flags (a boolean flag takes its value as --flag=false)`, { cause: e });
    }
    case 'commander.optionMissingArgument': {
      const names = (/'([^']+)'/.exec(msg)?.[1] ?? '').replace(/\s*[<[].*$/, '').split(',').map((n) => n.trim()).filter(Boolean);
      const flag = [...argv].reverse().find((a) => names.includes(a)) ?? names[names.length - 1] ?? '';
      return new FlagError(`flag needs an argument: ${flag}`, { flag, cause: e });
    }
    default:
      return new FlagError(msg, { cause: e });
  }
}

/** For tests and the docs: the table's keys. */
export const optionKeys = (): OptionKey[] => Object.keys(apiServerOptions) as OptionKey[];
