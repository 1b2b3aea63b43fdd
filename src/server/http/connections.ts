// Every connection of one node server, so that stop can close them all
// (upgraded streams included: Node's closeAllConnections does not know those)
// and none lives past the age cap. Owned by server.ts; all calls are
// synchronous and cheap; sweep() is idempotent.
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

interface ConnState {
  readonly born: number;
  inflight: number;
  upgraded: boolean;
}

export class ConnectionTracker {
  private readonly conns = new Map<Duplex, ConnState>();
  /** TCP sockets under TLS: closed on stop only (their TLS socket carries the age; destroying one would cut its TLS stream mid-response). */
  private readonly carriers = new Set<Duplex>();

  constructor(
    private readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A TCP connection under TLS, from accept on: tracked so that stop closes handshakes in progress too. */
  addCarrier(socket: Duplex): void {
    this.carriers.add(socket);
    socket.once('close', () => this.carriers.delete(socket));
  }

  /** A new HTTP connection: the TCP socket on HTTP, the TLS socket once negotiated on HTTPS. */
  add(socket: Duplex): void {
    if (this.conns.has(socket)) return;
    this.conns.set(socket, { born: this.now(), inflight: 0, upgraded: false });
    socket.once('close', () => this.conns.delete(socket));
  }

  /** A request begins on `socket`: past the age cap it is the connection's last one; otherwise it closes after this response if the cap passes meanwhile. */
  request(socket: Duplex, res: ServerResponse): void {
    const st = this.conns.get(socket);
    if (st === undefined) return;
    st.inflight += 1;
    if (this.expired(st)) {
      res.shouldKeepAlive = false;
      res.setHeader('Connection', 'close');
    }
    res.once('close', () => {
      st.inflight -= 1;
      // end() flushes the response first; a peer that never closes its side is destroyed by the next sweep.
      if (st.inflight === 0 && this.expired(st) && !socket.destroyed) socket.end();
    });
  }

  /** The connection left HTTP for a stream: it is only ever closed whole. */
  upgraded(socket: Duplex): void {
    const st = this.conns.get(socket);
    if (st !== undefined) st.upgraded = true;
  }

  /** Closes connections past the age cap that are idle or upgraded; ones with a response in flight close after it. */
  sweep(): void {
    for (const [socket, st] of this.conns) {
      if (this.expired(st) && (st.upgraded || st.inflight === 0)) socket.destroy();
    }
  }

  /** Stop: every connection, mid-handshake, mid-response or upgraded. */
  destroyAll(): void {
    for (const socket of this.conns.keys()) socket.destroy();
    for (const socket of this.carriers) socket.destroy();
    this.conns.clear();
    this.carriers.clear();
  }

  get size(): number {
    return this.conns.size;
  }

  private expired(st: ConnState): boolean {
    return this.now() - st.born >= this.maxAgeMs;
  }
}
