// The --manifest-url server of bench/sources.mjs: a PodList of a few pods,
// padded to a large size with a field the agent's decoder drops (an unknown
// `metadata.benchPadding` list; annotations are capped at 256 KiB a pod), as
// JSON. Quiet: the same bytes at every request. Churn (load (b)): every
// request gets other padding, so the agent must read and parse the whole body
// each time, while the pods it describes stay the same.
import http from 'node:http';

const STAMP = 'GGGGGGGG'; // 8 hex digits, rewritten in every padding string under churn
const STRING_BYTES = 200;

/** A PodList of `pods` (objects), padded to about `targetBytes`; the offsets of every stamp. */
export function paddedPodList(pods, targetBytes) {
  const bare = JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items: pods });
  const perString = STRING_BYTES + 3; // quotes and comma
  const strings = Math.max(1, Math.ceil((targetBytes - bare.length) / perString / Math.max(1, pods.length)));
  const pad = Array.from({ length: strings }, (_, i) => `${STAMP}${String(i).padStart(8, '0')}${'p'.repeat(STRING_BYTES - 16)}`);
  const items = pods.map((p) => ({ ...p, metadata: { ...p.metadata, benchPadding: pad } }));
  const body = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items }));
  const offsets = [];
  const stamp = Buffer.from(STAMP);
  for (let at = body.indexOf(stamp); at >= 0; at = body.indexOf(stamp, at + stamp.length)) offsets.push(at);
  return { body, offsets };
}

/** A copy of the template with generation `gen` (hex) in every stamp. */
function stamped(tpl, gen) {
  const out = Buffer.from(tpl.body);
  const hex = Buffer.from((gen >>> 0).toString(16).padStart(8, '0'));
  for (const at of tpl.offsets) hex.copy(out, at);
  return out;
}

/**
 * Serves GET /pods on 127.0.0.1 (an ephemeral port). `setChurn(true)` makes
 * every following answer differ from the one before. Every request is noted:
 * when it arrived and finished (epoch ms), bytes, generation, and whether the
 * client took the whole body.
 */
export async function startManifestServer(pods, targetBytes) {
  const tpl = paddedPodList(pods, targetBytes);
  const quiet = stamped(tpl, 0);
  let churn = false;
  let gen = 0;
  const requests = [];
  const server = http.createServer((req, res) => {
    if (req.url !== '/pods') {
      res.writeHead(404).end();
      return;
    }
    const body = churn ? stamped(tpl, ++gen) : quiet;
    const rec = { at: Date.now(), bytes: body.length, gen: churn ? gen : 0, doneAt: null, complete: false };
    requests.push(rec);
    res.on('finish', () => {
      rec.doneAt = Date.now();
      rec.complete = true;
    });
    res.on('close', () => (rec.doneAt ??= Date.now()));
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
    res.end(body);
  });
  await new Promise((res, rej) => {
    server.once('error', rej);
    server.listen(0, '127.0.0.1', res);
  });
  return {
    url: `http://127.0.0.1:${server.address().port}/pods`,
    bodyBytes: quiet.length,
    requests,
    setChurn: (on) => (churn = on),
    close: () =>
      new Promise((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
