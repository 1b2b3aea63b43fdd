// Binding a node server the way Go does: `0.0.0.0`, `::` or an empty address
// listen on every interface and both families. Shared by the health server
// and the main/read-only servers.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:net';

export function isUnspecified(address: string): boolean {
  return address === '' || address === '0.0.0.0' || address === '::';
}

/** `host:port`, IPv6 in brackets: how the log and startup errors name a listener. */
export function hostPort(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

/** Resolves once listening; rejects with the bind error (EADDRINUSE, EADDRNOTAVAIL) and leaves no listener behind. */
export function listen(server: Server, address: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen({ port, host: isUnspecified(address) ? undefined : address });
  });
}

/** Where `server` listens (TCP), or undefined when it is not listening. */
export function listeningAddress(server: { address(): AddressInfo | string | null } | undefined): AddressInfo | undefined {
  const a = server?.address();
  return a === null || a === undefined || typeof a === 'string' ? undefined : a;
}
