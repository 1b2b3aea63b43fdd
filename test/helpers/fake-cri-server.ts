// A real grpc-js server speaking CRI runtime.v1 (RuntimeService + ImageService)
// on a unix socket (or loopback TCP), backed by a FakeRuntime, so integration
// tests run the real client over real gRPC. It records the deadline each call
// arrived with, can stop and start again on the same address (a runtime
// restart), and can serve under another package name so every runtime.v1 call
// gets UNIMPLEMENTED (a runtime without CRI v1).
//
// Clients reach the gRPC server through a byte-level relay on the public
// address, so stop() can drop connections the way a crashing runtime does (the
// kernel closes its sockets: the client sees the connection vanish), rather
// than the orderly HTTP/2 stream cancellation of grpc-js's forceShutdown.
//
// Owner: the test. Call dispose() in afterEach; it stops the server and removes the socket directory.

import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { CriError, GRPC_STATUS } from '../../src/cri/errors.js';
import { FakeRuntime } from '../../src/cri/fake-runtime.js';
import { CRI_METHODS, METHODS, type CriMethod, type CriService } from '../../src/cri/methods.js';
import { decodeMessage, encodeMessage, loadCriProto, type CriProto } from '../../src/cri/proto.js';

export interface FakeCriServerOptions {
  runtime?: FakeRuntime;
  transport?: 'unix' | 'tcp';
  /** Serve under this package; anything but runtime.v1 makes every v1 call UNIMPLEMENTED. */
  apiPackage?: string;
}

export interface ReceivedCall {
  method: CriMethod;
  /** Epoch ms the client's deadline falls at; Infinity when the call had none. */
  deadline: number;
  /** Epoch ms the server received it. */
  receivedAt: number;
}

export class FakeCriServer {
  readonly runtime: FakeRuntime;
  readonly received: ReceivedCall[] = [];
  private server: grpc.Server | undefined;
  private relay: NetServer | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly dir: string;
  private readonly backendPath: string;
  private readonly socketPath: string | undefined;
  private port = 0;

  private constructor(
    private readonly proto: CriProto,
    private readonly opts: FakeCriServerOptions,
  ) {
    this.runtime = opts.runtime ?? new FakeRuntime();
    this.dir = mkdtempSync(join(tmpdir(), 'cri-'));
    this.backendPath = join(this.dir, 'grpc.sock');
    if ((opts.transport ?? 'unix') === 'unix') this.socketPath = join(this.dir, 'cri.sock');
  }

  static async start(opts: FakeCriServerOptions = {}): Promise<FakeCriServer> {
    const s = new FakeCriServer(await loadCriProto(), opts);
    await s.start();
    return s;
  }

  /** `unix:///tmp/cri-XXXX/cri.sock` or `tcp://127.0.0.1:PORT`; stable across stop/start. */
  get endpoint(): string {
    return this.socketPath !== undefined ? `unix://${this.socketPath}` : `tcp://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.server !== undefined;
  }

  receivedOf(method: CriMethod): ReceivedCall[] {
    return this.received.filter((r) => r.method === method);
  }

  /** (Re)starts serving on the same address. */
  async start(): Promise<void> {
    if (this.server) return;
    const server = new grpc.Server();
    const pkg = this.opts.apiPackage ?? 'runtime.v1';
    for (const service of ['RuntimeService', 'ImageService'] as const) {
      const [def, impl] = this.serviceFor(service, pkg);
      server.addService(def, impl);
    }
    rmSync(this.backendPath, { force: true });
    await new Promise<number>((resolve, reject) => {
      server.bindAsync(`unix:${this.backendPath}`, grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port)));
    });
    this.server = server;
    const relay = createServer((client) => {
      const backend = createConnection(this.backendPath);
      for (const [a, b] of [[client, backend], [backend, client]] as const) {
        this.sockets.add(a);
        a.on('error', () => b.destroy());
        a.on('close', () => {
          this.sockets.delete(a);
          b.destroy();
        });
        a.pipe(b);
      }
    });
    if (this.socketPath !== undefined) rmSync(this.socketPath, { force: true });
    await new Promise<void>((resolve, reject) => {
      relay.once('error', reject);
      if (this.socketPath !== undefined) relay.listen(this.socketPath, resolve);
      else relay.listen(this.port, '127.0.0.1', resolve);
    });
    const addr = relay.address();
    if (addr !== null && typeof addr === 'object') this.port = addr.port;
    this.relay = relay;
  }

  /** Stops at once, as a crashing runtime does: connections drop, calls in flight fail, the socket file goes away. */
  async stop(): Promise<void> {
    const server = this.server;
    const relay = this.relay;
    this.server = undefined;
    this.relay = undefined;
    for (const sock of this.sockets) sock.destroy();
    this.sockets.clear();
    if (relay) await new Promise<void>((resolve) => relay.close(() => resolve()));
    server?.forceShutdown();
    if (this.socketPath !== undefined) rmSync(this.socketPath, { force: true });
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private serviceFor(service: CriService, pkg: string): [grpc.ServiceDefinition, grpc.UntypedServiceImplementation] {
    const def: Record<string, grpc.MethodDefinition<object, object>> = {};
    const impl: grpc.UntypedServiceImplementation = {};
    for (const method of CRI_METHODS) {
      const codec = METHODS[method];
      if (codec.service !== service) continue;
      const reqType = this.proto.type(`${codec.rpc}Request`);
      const resType = this.proto.type(`${codec.rpc}Response`);
      def[codec.rpc] = {
        path: `/${pkg}.${service}/${codec.rpc}`,
        requestStream: false,
        responseStream: false,
        requestSerialize: (v: object) => encodeMessage(reqType, v),
        requestDeserialize: (b: Buffer) => decodeMessage(reqType, b),
        responseSerialize: (v: object) => encodeMessage(resType, v),
        responseDeserialize: (b: Buffer) => decodeMessage(resType, b),
        originalName: codec.rpc,
      };
      impl[codec.rpc] = (call: grpc.ServerUnaryCall<object, object>, callback: grpc.sendUnaryData<object>) => {
        const d = call.getDeadline();
        this.received.push({ method, deadline: d instanceof Date ? d.getTime() : d, receivedAt: Date.now() });
        const ac = new AbortController();
        call.on('cancelled', () => ac.abort(new Error('call cancelled by the client')));
        const run = this.runtime[method] as (...a: unknown[]) => Promise<never>;
        let pending: Promise<never>;
        try {
          pending = run.apply(this.runtime, [...codec.decodeRequest(call.request), ac.signal]);
        } catch (err) {
          pending = Promise.reject(err);
        }
        pending.then(
          (result) => callback(null, codec.encodeResponse(result)),
          (err: unknown) =>
            callback(
              err instanceof CriError
                ? { code: err.grpcCode, details: err.details }
                : { code: ac.signal.aborted ? GRPC_STATUS.CANCELLED : GRPC_STATUS.UNKNOWN, details: err instanceof Error ? err.message : String(err) },
            ),
        );
      };
    }
    return [def, impl];
  }
}
