#!/usr/bin/env node
// The only place that turns platform-apiserver's outcome into a process exit
// code. CommonJS (bin/package.json), loading the bundle built by
// packaging/bundle.mjs (dist/bundle/platform-apiserver.cjs).
'use strict';
const { join } = require('node:path');

// `platform-apiserver --help | head` closes the pipe early; that is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

let bundle;
try {
  bundle = require(join(__dirname, '../dist/bundle/platform-apiserver.cjs'));
} catch (err) {
  // A checkout that was never built has no bundle: say what to do instead of a stack trace.
  if (err?.code !== 'MODULE_NOT_FOUND' || !String(err.message).includes('platform-apiserver.cjs')) throw err;
  process.stderr.write('platform-apiserver: not built: run `npm run build`\n');
  process.exit(1);
}

// Once main() has settled the server has stopped and closed its log. A handle
// left open by mistake must not keep a stopped server's process alive, so the
// exit code is enforced after a short grace on an unref'd timer.
const EXIT_GRACE_MS = 2000;
function exitSoon(code) {
  process.exitCode = code;
  setTimeout(() => {
    const open = process.getActiveResourcesInfo();
    process.stderr.write(`platform-apiserver: still running ${EXIT_GRACE_MS} ms after stopping (left open: ${open.join(', ') || 'unknown'}); exiting with status ${code}\n`);
    process.exit(code);
  }, EXIT_GRACE_MS).unref();
}

// A second SIGTERM/SIGINT during shutdown ends the process with status 1.
bundle.main(process.argv.slice(2), { forceExit: () => process.exit(1) }).then(exitSoon, (err) => {
  process.stderr.write(`platform-apiserver: fatal: ${err?.stack ?? err}\n`);
  exitSoon(1);
});
