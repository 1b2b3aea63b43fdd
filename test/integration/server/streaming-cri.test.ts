// CRI Exec, Attach and PortForward over gRPC (the real client against the
// fake CRI server): requests arrive whole, the URL comes back, refusals keep
// their status.
import { afterEach, describe, expect, it } from 'vitest';
import { isCriError } from '../../../src/cri/errors.js';
import { createCriRuntime, type CriRuntime } from '../../../src/cri/grpc-client.js';
import { FakeCriServer } from '../../helpers/fake-cri-server.js';
import { recordingLog } from '../../unit/cri/cri-fixtures.js';
import { runningPod } from './streaming-fixture.js';

let srv: FakeCriServer | undefined;
let cri: CriRuntime | undefined;
afterEach(async () => {
  cri?.close();
  await srv?.dispose();
});

describe('CRI streaming calls over gRPC', () => {
  it('carries Exec, Attach and PortForward and answers the runtime URL', async () => {
    const fx = await runningPod();
    fx.runtime.setOnStream((r) => `http://127.0.0.1:9/${r.kind}/tok`);
    srv = await FakeCriServer.start({ runtime: fx.runtime });
    cri = await createCriRuntime({ runtimeEndpoint: srv.endpoint, requestTimeoutMs: 5_000, connectTimeoutMs: 5_000, log: recordingLog() });
    const exec = { containerId: fx.containerId, cmd: ['sh', '-c', 'echo ü'], tty: false, stdin: true, stdout: true, stderr: true };
    expect(await cri.exec(exec)).toBe('http://127.0.0.1:9/exec/tok');
    expect(fx.runtime.callsOf('exec').at(-1)).toEqual([exec]);
    const attach = { containerId: fx.containerId, tty: true, stdin: true, stdout: true, stderr: false };
    expect(await cri.attach(attach)).toBe('http://127.0.0.1:9/attach/tok');
    expect(fx.runtime.callsOf('attach').at(-1)).toEqual([attach]);
    expect(await cri.portForward({ podSandboxId: fx.sandboxId, port: [80, 65535] })).toBe('http://127.0.0.1:9/portForward/tok');
    expect(fx.runtime.callsOf('portForward').at(-1)).toEqual([{ podSandboxId: fx.sandboxId, port: [80, 65535] }]);

    const refused = await cri.exec({ ...exec, tty: true }).catch((e: unknown) => e);
    expect(isCriError(refused) && refused.status).toBe('INVALID_ARGUMENT');
    const missing = await cri.exec({ ...exec, containerId: 'nope' }).catch((e: unknown) => e);
    expect(isCriError(missing) && missing.status).toBe('NOT_FOUND');
  });
});
