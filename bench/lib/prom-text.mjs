// Reads one family of a Prometheus text exposition (a /metrics scrape) into
// samples: [{ labels: {name: value}, value }]. Enough for counters and
// gauges of the agent's /metrics; not a general parser (no escapes inside
// label values beyond \" and \\).
import { get } from 'node:http';

/** GET `url` (plain HTTP, loopback); resolves the body; rejects on a non-200 or after `timeoutMs`. */
export function scrape(url, timeoutMs = 10_000) {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`GET ${url}: ${res.statusCode} ${body.slice(0, 200)}`))));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`GET ${url}: no answer within ${timeoutMs} ms`)));
    req.once('error', reject);
  });
}

export function family(text, name) {
  const out = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const labels = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2].replace(/\\(["\\])/g, '$1');
    out.push({ labels, value: Number(m[3]) });
  }
  return out;
}

/** The per-label-set difference `after − before` of a counter family, keyed by `keyOf(labels)`; zero entries dropped. */
export function counterDelta(before, after, keyOf) {
  const sum = (samples) => {
    const m = new Map();
    for (const s of samples) m.set(keyOf(s.labels), (m.get(keyOf(s.labels)) ?? 0) + s.value);
    return m;
  };
  const b = sum(before);
  const out = {};
  for (const [k, v] of sum(after)) {
    const d = v - (b.get(k) ?? 0);
    if (d !== 0) out[k] = d;
  }
  return out;
}
