// Builds the agent's one native module, src/native/malloc-trim.c, into
// dist/native/malloc-trim.node (see src/heap/malloc-trim.ts for why). A
// Node-API module: one build serves every Node version from 20 on, and it
// needs only a C compiler ($CC, else cc or gcc), not Node's headers.
//
// Without a compiler the build goes on with a warning and the agent runs
// without trimming (it logs that once). A compiler that fails is an error.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../src/native/malloc-trim.c', import.meta.url));
const outDir = fileURLToPath(new URL('../dist/native/', import.meta.url));
const out = `${outDir}malloc-trim.node`;

function findCompiler() {
  for (const cc of [process.env.CC, 'cc', 'gcc'].filter(Boolean)) {
    try {
      execFileSync(cc, ['--version'], { stdio: 'ignore' });
      return cc;
    } catch {
      // not this one
    }
  }
  return undefined;
}

rmSync(outDir, { recursive: true, force: true });
if (process.platform !== 'linux') {
  process.stdout.write(`build-native: skipped on ${process.platform} (malloc_trim is glibc's)\n`);
} else {
  const cc = findCompiler();
  if (cc === undefined) {
    process.stderr.write('build-native: warning: no C compiler (set CC, or install gcc): dist/native/malloc-trim.node not built; the agent will run without returning free malloc memory\n');
  } else {
    mkdirSync(outDir, { recursive: true });
    execFileSync(cc, ['-shared', '-fPIC', '-O2', '-Wall', '-Wextra', '-Werror', '-fvisibility=hidden', '-o', out, src], { stdio: 'inherit' });
  }
}
