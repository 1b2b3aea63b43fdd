// Bundles the agent into one CommonJS file, dist/bundle/agent.cjs (what
// bin/agent.js runs), then has V8 write a code cache for it. One file loaded
// through vm.Script with that cache starts about twice as fast as ~200 ES
// modules: Node 20's ESM loader and JavaScript compilation dominated start-up.
// Modules reached through dynamic import() (the runtime side, the file and
// print paths) keep their lazy initialisation inside the bundle.
// tsc still type-checks and emits dist/ for the docs generator.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launcherOptions } from './launcher-options.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

// zod re-exports all of its ~60 message locales from one index; the agent uses
// English only. Swapping that index for English alone shrinks the bundle by
// about 300 KB (the decoding itself is unchanged).
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      args.importer.includes('/node_modules/zod/') ? { path: 'zod-locales-en', namespace: 'zod-locales' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, () => ({
      contents: "export { default as en } from 'zod/v4/locales/en.js';",
      resolveDir: root,
    }));
  },
};

// commander loads child_process (for executable subcommands, which the agent
// has none of) when it loads; that costs ~4 ms of every start. Load it on use.
const commanderLazyChildProcess = {
  name: 'commander-lazy-child-process',
  setup(b) {
    b.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
      const eager = "const childProcess = require('node:child_process');";
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes(eager)) throw new Error(`${args.path}: commander changed; update ${fileURLToPath(import.meta.url)}`);
      const lazy = "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };";
      return { contents: text.replace(eager, lazy), loader: 'js' };
    });
  },
};

// grpc-js's message decoder keeps the HTTP/2 chunks of the last message it
// read (and a view of its first byte) until the next message starts. A unary
// call has no next message, and a call's objects outlive it until V8's next
// full collection (they survive the young-generation ones), so every CRI
// answer's raw bytes stayed in memory ~20 s: the 1 s relist of 110 pods alone
// grew the agent's external memory by ~170 KB/s, a 5 MB sawtooth in its RSS.
// Dropping the chunks once the message is assembled frees them at the next
// young collection. (The agent's own hold: src/cri/grpc-connection.ts.)
const grpcDecoderLetsGo = {
  name: 'grpc-decoder-lets-go',
  setup(b) {
    b.onLoad({ filter: /[\\/]@grpc[\\/]grpc-js[\\/]build[\\/]src[\\/]stream-decoder\.js$/ }, (args) => {
      const assembled = 'const framedMessage = Buffer.concat(framedMessageBuffers, this.readMessageSize + 5);';
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes(assembled)) throw new Error(`${args.path}: grpc-js changed; update ${fileURLToPath(import.meta.url)}`);
      const letGo = `${assembled} this.readPartialMessage = []; this.readCompressFlag = Buffer.alloc(0);`;
      return { contents: text.replace(assembled, letGo), loader: 'js' };
    });
  },
};

rmSync(new URL('../dist/bundle', import.meta.url), { recursive: true, force: true });

// What both bundles share: one CommonJS file each for Node 20, minified, with its source map.
const common = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  minifySyntax: true,
  minifyWhitespace: true,
  // No keepNames: it gives every named function an own `name` (Object.defineProperty
  // at each creation), which turns ~7 500 of them into dictionary-mode objects:
  // ~1.3 MB of property dictionaries and ~2 MiB of RSS at 110 pods. Error classes
  // name themselves with literals (test/unit/architecture.test.ts holds src to it).
  keepNames: false,
  legalComments: 'linked',
  logLevel: 'warning',
};

await build({
  ...common,
  entryPoints: ['src/cli/main.ts'],
  outfile: 'dist/bundle/agent.cjs',
  minifyIdentifiers: true,
  define: { __AGENT_VERSION__: JSON.stringify(pkg.version), 'import.meta.url': '__agentModuleUrl' },
  banner: { js: "const __agentModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  plugins: [zodEnglishOnly, commanderLazyChildProcess, grpcDecoderLetsGo],
});

// platform-apiserver (bin/platform-apiserver.js): its own bundle, sharing the
// agent's option kinds, logging and lifecycle code but none of its runtime.
await build({
  ...common,
  entryPoints: ['src/apiserver/cli.ts'],
  outfile: 'dist/bundle/platform-apiserver.cjs',
  minifyIdentifiers: true,
  define: { __AGENT_VERSION__: JSON.stringify(pkg.version), 'import.meta.url': '__agentModuleUrl' },
  banner: { js: "const __agentModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  plugins: [zodEnglishOnly, commanderLazyChildProcess, grpcDecoderLetsGo],
});

// The sources' worker threads load their own files: the decoder and js-yaml,
// not the whole agent. The manifest parser's
// (src/sources/parser.ts):
await build({ ...common, entryPoints: ['src/sources/parse-worker.ts'], outfile: 'dist/bundle/manifest-worker.cjs', plugins: [zodEnglishOnly] });
// The URL source's worker (src/sources/url-fetch.ts): the decoder and the GET (node:http/https).
await build({ ...common, entryPoints: ['src/sources/url-worker.ts'], outfile: 'dist/bundle/url-worker.cjs', plugins: [zodEnglishOnly] });
// The health port's worker (src/server/healthz.ts): node:http and the healthz answers alone.
await build({ ...common, entryPoints: ['src/server/healthz-worker.ts'], outfile: 'dist/bundle/healthz-worker.cjs' });

// One code cache per way the agent is started (see bin/bundle-loader.js): plain
// `node bin/agent.js`, and bin/agent.js run as a program, with its first line's node options.
const warm = fileURLToPath(new URL('./warm-code-cache.mjs', import.meta.url));
const shebangNodeArgs = launcherOptions(fileURLToPath(new URL('../bin/agent.js', import.meta.url))).nodeArgs;
execFileSync(process.execPath, [warm], { stdio: 'inherit' });
if (shebangNodeArgs.length > 0) execFileSync(process.execPath, [...shebangNodeArgs, warm], { stdio: 'inherit' });
