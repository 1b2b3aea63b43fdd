// `platform-apiserver --help`, generated from the option table: grouped by
// section, flags sorted by name, each with type, default and help text.
import { apiGateHelpLines } from './gates.js';
import { API_SECTIONS, optionEntries, type ApiSection, type ServerOpt } from './table.js';
import { wrapWords } from '../../util/pflag.js';

export const DESCRIPTION = `The platform API server validates and configures data for the API objects
(pods, nodes, leases, service accounts, cluster trust bundles, ...) and serves
them over HTTPS to the agents, controllers and command-line clients of a
cluster. It keeps objects in memory unless --etcd-servers is given.`;

export function flagColumn(opt: ServerOpt<unknown>): string {
  const names = opt.short ? `-${opt.short}, --${opt.flag}` : `    --${opt.flag}`;
  return `${names}${opt.kind.isBool ? '' : ` ${opt.kind.type}`}`;
}

export function defaultText(opt: ServerOpt<unknown>): string {
  return opt.defaultText ?? opt.kind.show(opt.default as never);
}

export function sectionOptions(section: ApiSection): Array<ServerOpt<unknown>> {
  return optionEntries()
    .map((e) => e.opt)
    .filter((opt) => opt.section === section)
    .sort((a, b) => a.flag.localeCompare(b.flag));
}

const wrap = wrapWords;

export function renderApiServerHelp(width = 100): string {
  const out: string[] = [DESCRIPTION, '', 'Usage:', '  platform-apiserver [flags]', ''];
  for (const { id, title } of API_SECTIONS) {
    const entries = sectionOptions(id);
    if (entries.length === 0) continue;
    out.push(`${title} flags:`, '');
    const col = Math.max(...entries.map((o) => flagColumn(o).length)) + 4;
    const textWidth = Math.max(40, width - col);
    for (const opt of entries) {
      const d = defaultText(opt);
      const lines = wrap(d === '' ? opt.help : `${opt.help} (default ${d})`, textWidth);
      out.push(`  ${flagColumn(opt)}`.padEnd(col) + (lines[0] ?? ''));
      for (const l of lines.slice(1)) out.push(' '.repeat(col) + l);
      if (opt.flag === 'feature-gates') for (const g of apiGateHelpLines()) out.push(' '.repeat(col + 2) + g);
    }
    out.push('');
  }
  return out.join('\n');
}
