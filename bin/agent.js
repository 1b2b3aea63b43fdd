#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_TRIM_THRESHOLD_=65536 MALLOC_MMAP_THRESHOLD_=65536 node --max-semi-space-size=1 --no-sparkplug --expose-gc
// The line above is the agent's memory tuning, for every start through this
// file as an executable (the systemd unit's /usr/bin/agent, npm's bin link).
// V8's young generation otherwise grows to 32 MB during a burst of pod starts
// and keeps it; glibc otherwise gives each thread its own malloc arena and
// keeps freed memory (the brk heap held ~16 MiB, half of it free). Measured
// with 110 pods (bench/pods.mjs reads the line from here): ~77 MiB RSS instead
// of ~113 MiB, CPU unchanged within noise. V8's optimizing compiler stays on:
// capping it at the baseline compiler (--max-opt=1) saved ~4-5 MB of RSS but
// made the node servers' HTTP paths 4x slower (bench/node-server.mjs: /healthz
// 4 100 instead of ~20 000 requests/s), and a node agent answers scrapers and
// the API server's log/exec traffic all day. V8's baseline compiler
// (Sparkplug) is off (--no-sparkplug): a function goes from the interpreter
// straight to the optimizing compiler when hot. An idle agent runs most of its
// code rarely, and Sparkplug's code for it stayed resident: measured with 110
// API pods, ~5 MB less RSS and no more CPU without it; the node servers'
// benchmark (bench/node-server.mjs) passes unchanged.
// --expose-gc lets the agent collect a burst's garbage once the burst is over
// (src/heap/after-burst.ts). (--optimize-for-size lowered the steady-state
// RSS by a few MB but made every 110-pod batch ~15 % slower: not used.)
// `node bin/agent.js` runs without any of it.
// The only place that turns the agent's outcome into a process exit code.
// CommonJS (bin/package.json): Node's ESM loader would add ~10 ms to every
// start, and the bundle it loads is CommonJS anyway.
'use strict';
const { loadBundle } = require('./bundle-loader.js');

// `agent --help | head` closes the pipe early; that is not an error. The
// handler goes on each stream when something first uses it: creating an
// unused stderr pipe costs ~3 ms of a --print-config or --version run.
for (const name of ['stdout', 'stderr']) {
  const { get, enumerable } = Object.getOwnPropertyDescriptor(process, name);
  Object.defineProperty(process, name, {
    configurable: true,
    enumerable,
    get() {
      const stream = get.call(process);
      Object.defineProperty(process, name, { configurable: true, enumerable, get: () => stream });
      stream.on('error', (err) => {
        if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
        throw err;
      });
      return stream;
    },
  });
}

let bundle;
try {
  bundle = loadBundle();
} catch (err) {
  // A checkout that was never built has no bundle: say what to do instead of a stack trace.
  if (err?.code !== 'ENOENT' || !String(err.path ?? err.message).includes('agent.cjs')) throw err;
  process.stderr.write('agent: not built: run `npm run build`\n');
  process.exit(1);
}
const { main } = bundle.exports;

// Once main() has settled the agent is done: it has stopped its components and
// closed its log. A clean stop ends the process at once, with nothing left on
// the event loop. A handle something leaked (a file watcher of a source that
// failed while starting, a socket) would keep a failed agent alive forever:
// no health server, its lock released, and systemd never restarting it. So
// the exit code is enforced after this grace, on an unref'd timer that does
// not itself delay a clean exit.
const EXIT_GRACE_MS = 2000;
function exitSoon(code) {
  process.exitCode = code;
  setTimeout(() => {
    const open = process.getActiveResourcesInfo();
    process.stderr.write(`agent: still running ${EXIT_GRACE_MS} ms after stopping (left open: ${open.join(', ') || 'unknown'}); exiting with status ${code}\n`);
    process.exit(code);
  }, EXIT_GRACE_MS).unref();
}

// A second SIGTERM/SIGINT during shutdown ends the process with status 1, as the kubelet's does.
main(process.argv.slice(2), { forceExit: () => process.exit(1) }).then(exitSoon, (err) => {
  process.stderr.write(`agent: fatal: ${err?.stack ?? err}\n`);
  exitSoon(1);
});
