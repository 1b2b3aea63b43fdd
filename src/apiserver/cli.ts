// `platform-apiserver [flags]`: parse and validate the command line, then
// print help or the version, or run the server until SIGTERM/SIGINT. Returns
// the exit code; bin/platform-apiserver.js is the only place that exits.
import { isAgentError } from '../errors.js';
import { installSignalHandlers } from '../lifecycle/signals.js';
import { createLogging } from '../log/index.js';
import { parseCommandLine, type ParsedCommandLine } from './options/parse.js';
import { validateConfig } from './options/validate.js';
import type { ApiServerDeps } from './main.js';
import { serverVersion } from './http/version.js';

export interface ApiServerIO {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  /** Ends the process at once (second SIGTERM/SIGINT); only bin/ may exit, so it passes this in. */
  readonly forceExit: (signal: NodeJS.Signals) => void;
  /** What the integrator wires in (the registry's handler, authorizers). */
  readonly deps?: ApiServerDeps;
  /** Stops the server as SIGTERM would (tests); the process signals are handled as well. */
  readonly signal?: AbortSignal;
}

export async function main(argv: readonly string[], overrides: Partial<ApiServerIO> = {}): Promise<number> {
  const io: ApiServerIO = { stdout: overrides.stdout ?? process.stdout, stderr: overrides.stderr ?? process.stderr, forceExit: overrides.forceExit ?? (() => (process.exitCode = 1)), ...overrides };
  let parsed: ParsedCommandLine;
  try {
    parsed = parseCommandLine(argv);
  } catch (e) {
    if (!isAgentError(e)) throw e;
    io.stderr.write(`Error: ${e.message}\nRun 'platform-apiserver --help' for usage.\n`);
    return 1;
  }
  if (parsed.help) {
    const { renderApiServerHelp } = await import('./options/help.js');
    io.stdout.write(renderApiServerHelp() + '\n');
    return 0;
  }
  if (parsed.version) {
    io.stdout.write(`platform-apiserver ${serverVersion().gitVersion}\n`);
    return 0;
  }
  const { problems, gates } = validateConfig(parsed.config);
  if (problems.length > 0) {
    const lines = problems.length === 1 ? [`Error: invalid platform-apiserver options: ${problems[0]!.message}`] : [`Error: invalid platform-apiserver options (${problems.length} problems):`, ...problems.map((p) => `  - ${p.message}`)];
    io.stderr.write(lines.join('\n') + '\n');
    return 1;
  }
  const c = parsed.config;
  const logging = createLogging({ format: c.loggingFormat, verbosity: c.verbosity, vmodule: [], flushFrequencyMs: 5000, json: { splitStream: false, infoBufferSize: 0 }, stdout: io.stdout, stderr: io.stderr });
  const log = logging.root.child({ component: 'apiserver' });
  const root = new AbortController();
  const uninstall = installSignalHandlers(root, log, { forceExit: io.forceExit });
  const fromCaller = io.signal;
  const onCallerAbort = (): void => root.abort(fromCaller?.reason);
  fromCaller?.addEventListener('abort', onCallerAbort, { once: true });
  if (fromCaller?.aborted === true) onCallerAbort();
  try {
    const { startApiServer } = await import('./main.js');
    // Tests may pass the whole back end in; otherwise it is built from the configuration.
    const backend = io.deps === undefined ? await (await import('./assemble/index.js')).assembleBackend(c, gates, log) : undefined;
    try {
      const running = await startApiServer({ config: c, gates }, io.deps ?? backend!.deps, log, root.signal);
      await Promise.all([running.stopped, backend?.run(root.signal)]);
    } finally {
      await backend?.close();
    }
    log.info('platform-apiserver stopped');
    return 0;
  } catch (e) {
    log.error('platform-apiserver failed', { err: e });
    return 1;
  } finally {
    fromCaller?.removeEventListener('abort', onCallerAbort);
    uninstall();
    await logging.close();
  }
}
