// The environment and node options of bin/agent.js's first line
// ("#!/usr/bin/env -S VAR=x ... node --opt ..."): the build writes a code cache
// for them, and the benchmarks start the agent with them, as a program start would.
import { readFileSync } from 'node:fs';

/** @returns {{ env: Record<string, string>, nodeArgs: string[] }} */
export function launcherOptions(file) {
  const first = readFileSync(file, 'utf8').split('\n', 1)[0];
  const words = /^#!\/usr\/bin\/env(?: -S)? (.*)$/.exec(first)?.[1].trim().split(/\s+/) ?? [];
  const at = words.indexOf('node');
  if (at < 0) throw new Error(`${file}: expected a "#!/usr/bin/env -S ... node ..." first line, got ${JSON.stringify(first)}`);
  const env = Object.fromEntries(words.slice(0, at).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]));
  return { env, nodeArgs: words.slice(at + 1) };
}
