// docs/apiserver-options.md, generated from the option table. `npm run docs`
// (node dist/apiserver/options/gen-docs.js) rewrites it, `--check` exits 1 when it is
// stale; test/unit/apiserver/options runs the same comparison.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { API_GATES } from './gates.js';
import { defaultText, sectionOptions } from './help.js';
import { API_SECTIONS } from './table.js';

const cell = (s: string): string => s.replaceAll('|', '\\|').replaceAll('\n', ' ');
const code = (s: string): string => (s === '' ? '' : `\`${s.replaceAll('`', "'")}\``);

export const DOC_PATH = 'docs/apiserver-options.md';

export function renderApiServerOptionsDoc(): string {
  const out: string[] = [
    '# platform-apiserver options reference',
    '',
    '<!-- Generated from src/apiserver/options/table.ts by `npm run docs`. Do not edit. -->',
    '',
    'Every flag of `platform-apiserver`, grouped as `platform-apiserver --help` groups them. Names and defaults are',
    "kube-apiserver's where it has the option; the Notes column says where this server differs. Bad flags and values stop",
    'the server at start with one error naming the flag (exit status 1).',
    '',
  ];
  for (const { id, title } of API_SECTIONS) {
    out.push(`## ${title}`, '', '| Flag | Type | Default | Notes | Meaning |', '|---|---|---|---|---|');
    for (const opt of sectionOptions(id)) {
      const flag = opt.short ? `\`-${opt.short}\`, \`--${opt.flag}\`` : `\`--${opt.flag}\``;
      out.push(`| ${flag} | ${opt.kind.type} | ${cell(code(defaultText(opt)))} | ${cell(opt.note ?? '')} | ${cell(opt.help)} |`);
    }
    out.push('');
  }
  out.push('## Feature gates', '', '| Gate | Stage | Default |', '|---|---|---|');
  for (const g of API_GATES) out.push(`| \`${g.name}\` | ${g.stage} | ${String(g.default)} |`);
  out.push('', 'An unknown gate name is a start-up error naming it.', '');
  out.push(
    '## Request body limit',
    '',
    'A request body larger than `--max-resource-write-bytes` (default 3145728 bytes, 3 MiB, kube-apiserver\'s built-in',
    'MaxRequestBodyBytes) is refused with 413 and a `Status` of reason `RequestEntityTooLarge`',
    '(`Request entity too large: limit is 3145728`), before the body is decoded.',
    '',
  );
  return out.join('\n');
}

export function repoRoot(): string {
  return join(dirname(fileURLToPath(import.meta.url)), '../../..');
}

/** True when the file on disk differs from what the table generates. */
export function apiServerDocStale(root = repoRoot()): boolean {
  let text: string;
  try {
    text = readFileSync(join(root, DOC_PATH), 'utf8');
  } catch {
    return true;
  }
  return text !== renderApiServerOptionsDoc();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv.includes('--check')) {
    if (apiServerDocStale()) {
      process.stderr.write(`stale generated docs: ${DOC_PATH}; run npm run docs\n`);
      process.exitCode = 1;
    }
  } else writeFileSync(join(repoRoot(), DOC_PATH), renderApiServerOptionsDoc());
}
