// What the agent's and platform-apiserver's command lines share: pflag's
// spellings that commander lacks, and the word wrap of their --help. Pure.

/**
 * `--flag_name` → `--flag-name`, `-v=4` → `-v 4`, a bare boolean flag →
 * `=true` (pflag: a boolean takes a value only as --flag=value, so
 * `--flag false` leaves `false` as an argument). `bools` holds the boolean
 * flags as typed (`--x`, `-x`). Everything after `--` is left alone.
 */
export function normalizePflagArgv(argv: readonly string[], bools: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = (eq < 0 ? a : a.slice(0, eq)).replaceAll('_', '-');
      out.push(name + (eq >= 0 ? a.slice(eq) : bools.has(name) ? '=true' : ''));
    } else if (/^-[A-Za-z]=/.test(a)) {
      out.push(a.slice(0, 2), a.slice(3));
    } else if (/^-[A-Za-z]$/.test(a) && bools.has(a)) {
      out.push(a, 'true');
    } else out.push(a);
  }
  return out;
}

/** Words of `text` in lines of at most `width` characters (a longer word gets a line of its own). */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}
