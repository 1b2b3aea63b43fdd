// The replay server of bench/informer.mjs, a child process started by
// bench/lib/informer-replay.mjs (IPC channel required):
//
//   node bench/lib/informer-replay-server.mjs SPEC.json
//
// SPEC: { cert, key (PEM file paths: the API server's own), token, namespace,
// listRv, recordings: { json: { file, headers }, protobuf: { file, headers } } }.
// A bare node:https server with the same TLS settings as platform-apiserver
// (src/apiserver/http/server.ts), so TLS stays in the cost. A watch of the
// namespace's pods from listRv gets the recorded body of the representation
// its Accept picks (protobuf when it names application/vnd.platform.protobuf,
// else JSON), written as fast as the socket drains, then the stream ends. A
// watch from any other version (the informer's re-watch from the last event)
// gets the recorded headers and no events, held open until stop: nothing
// happened after the backlog. Everything else: 404 (401 without the token).
// Sends { port } once listening; on the message 'stop' closes everything,
// sends { stats } and exits.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const bodies = { json: readFileSync(spec.recordings.json.file), protobuf: readFileSync(spec.recordings.protobuf.file) };
const WATCH_PATH = `/api/v1/namespaces/${spec.namespace}/pods`;
/** Written per write call; the socket's drain paces the rest. */
const SLICE = 64 * 1024;
const stats = { replays: [], heldOpen: 0, unauthorized: 0, notFound: [] };
const held = new Set();

function status(res, code, reason, message) {
  const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function drainedOrClosed(res) {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Writes `body` in slices, each after the previous one drained; resolves when all is handed to the socket or the client left. */
async function drainWrite(res, body) {
  for (let off = 0; off < body.length && !res.destroyed; off += SLICE) {
    if (!res.write(body.subarray(off, off + SLICE))) await drainedOrClosed(res);
  }
}

function onRequest(req, res) {
  res.on('error', () => {});
  const url = new URL(req.url ?? '/', 'https://replay');
  const watch = url.searchParams.get('watch');
  if (req.method !== 'GET' || url.pathname !== WATCH_PATH || (watch !== 'true' && watch !== '1')) {
    if (stats.notFound.length < 5) stats.notFound.push(`${req.method} ${req.url}`);
    return status(res, 404, 'NotFound', `the replay serves only the watch of ${WATCH_PATH}`);
  }
  if (req.headers.authorization !== `Bearer ${spec.token}`) {
    stats.unauthorized++;
    return status(res, 401, 'Unauthorized', 'Unauthorized');
  }
  const representation = /application\/vnd\.platform\.protobuf/.test(req.headers.accept ?? '') ? 'protobuf' : 'json';
  res.writeHead(200, spec.recordings[representation].headers);
  if (url.searchParams.get('resourceVersion') !== spec.listRv) {
    stats.heldOpen++;
    res.flushHeaders();
    held.add(res);
    res.once('close', () => held.delete(res));
    return;
  }
  const t0 = process.hrtime.bigint();
  const replay = { representation, bytes: bodies[representation].length, ms: null, complete: false };
  stats.replays.push(replay);
  void drainWrite(res, bodies[representation]).then(() => {
    replay.complete = !res.destroyed;
    res.end();
    replay.ms = Number(process.hrtime.bigint() - t0) / 1e6;
  });
}

const server = createServer({ cert: readFileSync(spec.cert), key: readFileSync(spec.key), minVersion: 'TLSv1.2', ALPNProtocols: ['http/1.1'] }, onRequest);
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (m !== 'stop') return;
  for (const res of held) res.destroy();
  server.closeAllConnections();
  server.close();
  process.send({ stats }, () => process.exit(0));
});
// The parent is gone: nothing to serve any more.
process.on('disconnect', () => process.exit(0));
