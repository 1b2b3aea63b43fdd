#!/usr/bin/env node
// The only place that turns the agent's outcome into a process exit code.
import { loadBundle } from './bundle-loader.js';

// `agent --help | head` closes the pipe early; that is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
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
// A second SIGTERM/SIGINT during shutdown ends the process with status 1, as the kubelet's does.
main(process.argv.slice(2), { forceExit: () => process.exit(1) }).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`agent: fatal: ${err?.stack ?? err}\n`);
    process.exitCode = 1;
  },
);
