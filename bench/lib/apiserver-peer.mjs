// The create-path peer of bench/apiserver.mjs: the least an HTTPS API server
// over etcd can do per create — a bare node:https server (the API server's
// own certificate) that reads the JSON body, parses it, stores it with the
// same guarded create through the project's etcd client, and answers 201
// with the stored bytes. No authentication, admission, validation, defaults,
// protobuf or watch. It shows how much of the machine's two cores the HTTPS
// and etcd-client layers alone leave for the rest.
//
// Run as a child: `node apiserver-peer.mjs <etcd endpoint> <cert file> <key file>`;
// it sends its port to the parent over IPC and serves until killed.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO } from './session.mjs';

const [endpoint, certFile, keyFile] = process.argv.slice(2);
const { createEtcdStorage } = await import(pathToFileURL(join(REPO, 'dist/apiserver/storage/etcd-store.js')).href);
const storage = await createEtcdStorage({ endpoints: [endpoint], prefix: '/peer/', log: { info() {}, warn() {}, error() {} } });
const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let obj;
    try {
      obj = JSON.parse(Buffer.concat(chunks).toString());
    } catch {
      res.writeHead(400).end();
      return;
    }
    const value = Buffer.from(JSON.stringify(obj));
    storage.create(`pods/${obj.metadata?.namespace}/${obj.metadata?.name}`, value).then(
      () => {
        res.writeHead(201, { 'content-type': 'application/json', 'content-length': value.length });
        res.end(value);
      },
      (err) => res.writeHead(500).end(String(err)),
    );
  });
});
server.listen(0, '127.0.0.1', () => process.send?.(server.address().port));
