// Runs a block of conformance tests once per storage backend: the in-memory
// store and etcd (Debian's etcd-server, started on loopback for the file).
// Under CI a missing etcd is a failure, never a silent skip.
import { afterAll, beforeAll, describe } from 'vitest';
import { startEtcd, type TestEtcd } from '../../helpers/etcd.js';
import { startServer, type Backend, type ServerHandle, type ServerOptions } from './server.js';

// CONFORMANCE_BACKENDS=memory narrows a local run; CI runs both.
export const BACKENDS: readonly Backend[] = (process.env['CONFORMANCE_BACKENDS']?.split(',') as Backend[] | undefined) ?? ['memory', 'etcd'];

/**
 * `body(srv)` registers tests; `srv()` returns the running server inside them.
 * Each backend gets its own server (and the etcd one its own etcd).
 */
export function describeBackends(title: string, opts: Omit<ServerOptions, 'backend' | 'etcdEndpoint'>, body: (srv: () => ServerHandle, backend: Backend) => void): void {
  for (const backend of BACKENDS) {
    describe(`${title} [${backend}]`, () => {
      let etcd: TestEtcd | undefined;
      let server: ServerHandle | undefined;
      beforeAll(async () => {
        if (backend === 'etcd') etcd = await startEtcd();
        server = await startServer({ ...opts, backend, ...(etcd === undefined ? {} : { etcdEndpoint: etcd.endpoint }) });
      }, 60_000);
      afterAll(async () => {
        await server?.stop();
        await etcd?.stop();
      }, 60_000);
      body(() => {
        if (server === undefined) throw new Error('server not started');
        return server;
      }, backend);
    });
  }
}

/** A name unique within the test run, valid as a DNS label. */
let seq = 0;
export function uniq(prefix: string): string {
  seq++;
  return `${prefix}-${process.pid.toString(36)}-${seq}`;
}
