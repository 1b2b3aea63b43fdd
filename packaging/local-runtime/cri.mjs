#!/usr/bin/env node
// A minimal CRI (runtime.v1) client on Node built-ins only (http2 + a few
// hand-encoded protobuf fields), for the local runtime's own scripts -- not
// the agent's CRI client.
//
//   node cri.mjs SOCKET version     prints "runtimeName runtimeVersion runtimeApiVersion"
//   node cri.mjs SOCKET cleanup     stops and removes every pod sandbox (so the
//                                   CRI plugin runs CNI DEL and unmounts the
//                                   sandbox's netns/shm); prints how many
//
// Exit status: 0 done, 1 the runtime answered with an error, 2 unreachable.
import { connect } from 'node:http2';
import { connect as netConnect } from 'node:net';

const [sock, cmd] = process.argv.slice(2);
const DEADLINE_MS = Number(process.env.CRI_TIMEOUT_MS ?? 10_000);

// ---- protobuf: just what these calls need
function varint(n) {
  const out = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
}
function stringField(field, s) {
  const b = Buffer.from(s, 'utf8');
  return Buffer.concat([varint((field << 3) | 2), varint(b.length), b]);
}
/** Decodes one message level: field number -> array of raw values (Buffer for length-delimited, number for varint). */
function fields(buf) {
  const out = new Map();
  let i = 0;
  const readVarint = () => {
    let r = 0;
    let shift = 0;
    for (;;) {
      const b = buf[i++];
      if (b === undefined) throw new Error('truncated varint');
      r += (b & 0x7f) * 2 ** shift;
      if (!(b & 0x80)) return r;
      shift += 7;
    }
  };
  while (i < buf.length) {
    const key = readVarint();
    const field = Math.floor(key / 8);
    const wire = key & 7;
    let v;
    if (wire === 0) v = readVarint();
    else if (wire === 2) {
      const len = readVarint();
      v = buf.subarray(i, i + len);
      i += len;
    } else if (wire === 1) {
      v = buf.subarray(i, i + 8);
      i += 8;
    } else if (wire === 5) {
      v = buf.subarray(i, i + 4);
      i += 4;
    } else throw new Error(`unsupported wire type ${wire}`);
    if (!out.has(field)) out.set(field, []);
    out.get(field).push(v);
  }
  return out;
}
const str = (m, f) => (m.get(f)?.[0] ?? Buffer.alloc(0)).toString('utf8');

// ---- gRPC over HTTP/2 on a unix socket
function client() {
  const session = connect('http://localhost', { createConnection: () => netConnect(sock) });
  session.on('error', () => {});
  return session;
}

function call(session, method, message) {
  return new Promise((resolve, reject) => {
    const req = session.request({
      ':method': 'POST',
      ':path': `/runtime.v1.RuntimeService/${method}`,
      'content-type': 'application/grpc',
      te: 'trailers',
      'grpc-timeout': `${DEADLINE_MS}m`,
    });
    const timer = setTimeout(() => {
      req.close();
      reject(Object.assign(new Error(`${method}: deadline exceeded`), { unreachable: true }));
    }, DEADLINE_MS + 500);
    const chunks = [];
    let status = null;
    let statusMessage = '';
    const takeStatus = (h) => {
      if (h['grpc-status'] !== undefined) {
        status = Number(h['grpc-status']);
        statusMessage = decodeURIComponent(String(h['grpc-message'] ?? ''));
      }
    };
    req.on('response', takeStatus);
    req.on('trailers', takeStatus);
    req.on('data', (c) => chunks.push(c));
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(Object.assign(e, { unreachable: true }));
    });
    req.on('end', () => {
      clearTimeout(timer);
      if (status !== 0) {
        reject(new Error(`${method}: grpc status ${status}: ${statusMessage}`));
        return;
      }
      const body = Buffer.concat(chunks);
      resolve(body.length >= 5 ? body.subarray(5, 5 + body.readUInt32BE(1)) : Buffer.alloc(0));
    });
    const frame = Buffer.alloc(5);
    frame.writeUInt32BE(message.length, 1);
    req.end(Buffer.concat([frame, message]));
  });
}

async function main() {
  if (!sock || !cmd) {
    process.stderr.write('usage: cri.mjs SOCKET version|cleanup\n');
    return 2;
  }
  const session = client();
  try {
    if (cmd === 'version') {
      const m = fields(await call(session, 'Version', stringField(1, 'v1')));
      process.stdout.write(`${str(m, 2)} ${str(m, 3)} ${str(m, 4)}\n`);
      return 0;
    }
    if (cmd === 'cleanup') {
      const list = fields(await call(session, 'ListPodSandbox', Buffer.alloc(0)));
      const ids = (list.get(1) ?? []).map((item) => str(fields(item), 1));
      let failed = 0;
      await Promise.all(
        ids.map(async (id) => {
          try {
            await call(session, 'StopPodSandbox', stringField(1, id));
            await call(session, 'RemovePodSandbox', stringField(1, id));
          } catch (e) {
            failed++;
            process.stderr.write(`cri cleanup: ${id}: ${e.message}\n`);
          }
        }),
      );
      process.stdout.write(`${ids.length - failed}\n`);
      return failed ? 1 : 0;
    }
    process.stderr.write(`cri.mjs: unknown command ${cmd}\n`);
    return 2;
  } catch (e) {
    process.stderr.write(`cri.mjs: ${e.message}\n`);
    return e.unreachable ? 2 : 1;
  } finally {
    session.close();
    session.destroy();
  }
}

process.exitCode = await main();
