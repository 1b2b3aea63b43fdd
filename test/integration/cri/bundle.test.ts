// The CRI client works from an esbuild CommonJS bundle laid out as the agent's
// (dist/bundle/agent.cjs beside proto/): grpc-js and protobufjs load through
// dynamic import inside the bundle, and the proto is found by walking up from
// the bundle. Built with the same import.meta.url substitution as packaging/bundle.mjs.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeCriServer } from '../../helpers/fake-cri-server.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const run = promisify(execFile);

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

describe('CRI client in the bundle', () => {
  it('loads lazily, finds the proto from dist/bundle, and talks to a runtime', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cri-bundle-'));
    cleanup.push(() => rmSync(root, { recursive: true, force: true }));
    mkdirSync(join(root, 'proto'), { recursive: true });
    cpSync(join(REPO, 'proto'), join(root, 'proto'), { recursive: true });
    const entry = join(root, 'entry.ts');
    writeFileSync(
      entry,
      `import { performance } from 'node:perf_hooks';
export async function main(endpoint: string): Promise<string> {
  const t0 = performance.now();
  const { createCriRuntime } = await import(${JSON.stringify(join(REPO, 'src/cri/grpc-client.ts'))});
  const { loadCriProto } = await import(${JSON.stringify(join(REPO, 'src/cri/proto.ts'))});
  const t1 = performance.now();
  await Promise.all([import('@grpc/grpc-js'), loadCriProto()]);
  const t2 = performance.now();
  const cri = await createCriRuntime({ runtimeEndpoint: endpoint, requestTimeoutMs: 5000, log: { info() {}, warn() {}, error() {} } });
  const t3 = performance.now();
  const v = await cri.version();
  cri.close();
  return JSON.stringify({ version: v, loadMs: t2 - t1, connectMs: t3 - t2 });
}
`,
    );
    const outfile = join(root, 'dist', 'bundle', 'agent.cjs');
    await build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      minify: true,
      nodePaths: [join(REPO, 'node_modules')],
      define: { 'import.meta.url': '__agentModuleUrl' },
      banner: { js: "const __agentModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
      logLevel: 'silent',
    });
    const srv = await FakeCriServer.start();
    cleanup.push(() => srv.dispose());
    const { stdout } = await run(process.execPath, ['-e', `require(${JSON.stringify(outfile)}).main(process.argv[1]).then((s) => console.log(s))`, srv.endpoint], { cwd: root });
    const out = JSON.parse(stdout) as { version: { runtimeApiVersion: string }; loadMs: number; connectMs: number };
    expect(out.version.runtimeApiVersion).toBe('v1');
    expect(srv.runtime.callsOf('version').length).toBe(2); // handshake + the call
    // Measured, not asserted tightly (machines vary): report in the test log.
    console.info(`bundle: grpc-js + protobufjs + proto parse ${out.loadMs.toFixed(1)} ms, connect + handshake ${out.connectMs.toFixed(1)} ms`);
    expect(out.loadMs).toBeLessThan(2_000);
  });
});
