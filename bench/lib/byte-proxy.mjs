// A byte-counting TCP proxy on loopback: what it reads from each side goes
// unchanged to the other (TLS passes through: it never sees a request), and
// it counts the bytes each way and the connections. bench/cluster.mjs puts
// it between the agent and platform-apiserver to measure the agent's bytes
// per minute. `close()` destroys every socket; the clean-up may call it more
// than once.
import net from 'node:net';

/** Listens on 127.0.0.1 (a free port) and forwards to 127.0.0.1:`targetPort`. Resolves { port, url, snapshot(), close() }. */
export async function startByteProxy(targetPort) {
  const counts = { up: 0, down: 0, connections: 0, open: 0 };
  const sockets = new Set();
  const server = net.createServer((client) => {
    counts.connections++;
    counts.open++;
    const upstream = net.connect(targetPort, '127.0.0.1');
    sockets.add(client);
    sockets.add(upstream);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      counts.open--;
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('data', (d) => (counts.up += d.length));
    upstream.on('data', (d) => (counts.down += d.length));
    client.pipe(upstream);
    upstream.pipe(client);
    for (const s of [client, upstream]) {
      s.on('error', end);
      s.on('close', end);
    }
  });
  await new Promise((res, rej) => {
    server.once('error', rej);
    server.listen(0, '127.0.0.1', res);
  });
  const { port } = server.address();
  let closed = false;
  return {
    port,
    url: `https://127.0.0.1:${port}`,
    /** Bytes agent → server (`up`), server → agent (`down`), connections accepted so far and open now. */
    snapshot: () => ({ ...counts }),
    close() {
      if (closed) return;
      closed = true;
      server.close();
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
  };
}
