// The grpc handler (the kubelet's pkg/probe/grpc): one
// grpc.health.v1.Health/Check call with the probe's `service`, over an
// insecure channel to the pod's IP, within the budget. SERVING is a success;
// any other status, a failed connection, an unimplemented service or the
// budget running out is a failure with the kubelet's wording. Never throws.
// grpc-js and protobufjs are loaded on first use (a node without grpc
// probes never loads them for this).
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Type } from 'protobufjs';
import { findUp } from './find-up.js';
import { hostForUrl, type Action, type ActionResult, type ActionTarget } from './action.js';

export const HEALTH_PROTO = 'proto/grpc/health/v1/health.proto';
const CHECK = '/grpc.health.v1.Health/Check';

interface HealthTypes {
  request: Type;
  response: Type;
  grpc: typeof import('@grpc/grpc-js');
}

let loading: Promise<HealthTypes> | undefined;

/** The health protocol's message types (from the project's proto file); loaded once per process. */
export function loadHealth(): Promise<HealthTypes> {
  loading ??= (async () => {
    const pb = await import('protobufjs');
    const protobuf: typeof pb = (pb as unknown as { default?: typeof pb }).default ?? pb;
    const g = await import('@grpc/grpc-js');
    const grpc: typeof g = (g as unknown as { default?: typeof g }).default ?? g;
    const root = new protobuf.Root();
    protobuf.parse(readFileSync(findUp(dirname(fileURLToPath(import.meta.url)), HEALTH_PROTO), 'utf8'), root, { keepCase: true });
    root.resolveAll();
    return { request: root.lookupType('grpc.health.v1.HealthCheckRequest'), response: root.lookupType('grpc.health.v1.HealthCheckResponse'), grpc };
  })().catch((e: unknown) => {
    loading = undefined;
    throw e;
  });
  return loading;
}

/** `userAgent`: `platform-probe/<major.minor>`. */
export async function runGrpc(action: NonNullable<Action['grpc']>, target: ActionTarget, userAgent: string): Promise<ActionResult> {
  const { request, response, grpc } = await loadHealth();
  const address = `${hostForUrl(target.podIP)}:${action.port}`;
  const service = action.service ?? '';
  const timeoutMs = target.timeoutMs > 0 ? target.timeoutMs : 1000;
  const client = new grpc.Client(address, grpc.credentials.createInsecure(), { 'grpc.primary_user_agent': userAgent, 'grpc.enable_retries': 0, 'grpc.use_local_subchannel_pool': 1 });
  const serialize = (v: object): Buffer => Buffer.from(request.encode(request.fromObject(v)).finish());
  const deserialize = (b: Buffer): { status?: string } => response.toObject(response.decode(b), { enums: String, defaults: true }) as { status?: string };
  try {
    return await new Promise<ActionResult>((resolve) => {
      const call = client.makeUnaryRequest(CHECK, serialize, deserialize, { service }, new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) => {
        target.signal.removeEventListener('abort', cancel);
        if (err) return resolve(fromError(err, grpc.status, service, timeoutMs));
        const status = res?.status ?? 'UNKNOWN';
        resolve(status === 'SERVING' ? { result: 'success', output: '' } : { result: 'failure', output: `service unhealthy (responded with "${status}")` });
      });
      const cancel = (): void => call.cancel();
      target.signal.addEventListener('abort', cancel, { once: true });
    });
  } finally {
    client.close();
  }
}

function fromError(err: { code: number; details?: string; message: string }, codes: typeof import('@grpc/grpc-js').status, service: string, timeoutMs: number): ActionResult {
  if (err.code === codes.UNIMPLEMENTED) return { result: 'failure', output: `this server does not implement the grpc health protocol (grpc.health.v1.Health): ${err.details ?? err.message}` };
  if (err.code === codes.DEADLINE_EXCEEDED) return { result: 'failure', output: `timeout: health rpc did not complete within ${timeoutMs / 1000}s` };
  if (err.code === codes.UNAVAILABLE) return { result: 'failure', output: `timeout: failed to connect service ${JSON.stringify(service)} within ${timeoutMs / 1000}s: ${err.details ?? err.message}` };
  return { result: 'failure', output: `rpc error: code = ${err.code} desc = ${err.details ?? err.message}` };
}
