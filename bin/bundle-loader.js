// Loads the bundled agent (dist/bundle/agent.cjs) with V8's code cache. The
// build writes the cache (packaging/warm-code-cache.mjs) after running the
// bundle through its start-up paths, so a start skips most JavaScript
// compilation. Node 20 has no module compile cache; vm.Script's cachedData is
// the same mechanism. A cache V8 rejects (another Node version, other flags)
// only costs the compilation it would have saved. V8 rejects a cache made
// under other flags (even --max-semi-space-size), so there is one per set of
// node options: bin/agent.js's first line runs node with its memory options,
// `node bin/agent.js` without; the build writes both.
'use strict';
const { createRequire } = require('node:module');
const { readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const vm = require('node:vm');

const BUNDLE = join(__dirname, '../dist/bundle/agent.cjs');
/** `agent.cjs.cache` for a plain `node`, `agent.cjs.<hash>.cache` for node started with options. */
function codeCacheFor(execArgv) {
  if (execArgv.length === 0) return `${BUNDLE}.cache`;
  let h = 0x811c9dc5; // FNV-1a: no crypto at start-up
  for (const ch of execArgv.join('\0')) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return `${BUNDLE}.${h.toString(16).padStart(8, '0')}.cache`;
}
const CODE_CACHE = codeCacheFor(process.execArgv);

/** Returns the bundle's exports and the compiled script (to produce a cache from). */
function loadBundle() {
  const source = readFileSync(BUNDLE, 'utf8');
  let cachedData;
  try {
    cachedData = readFileSync(CODE_CACHE);
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: BUNDLE,
    cachedData,
  });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(BUNDLE), module, BUNDLE, dirname(BUNDLE));
  return { exports: module.exports, script, cacheUsed: cachedData !== undefined && !script.cachedDataRejected };
}

module.exports = { BUNDLE, CODE_CACHE, loadBundle };
