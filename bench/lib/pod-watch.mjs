// Watches the pods of one namespace on platform-apiserver (admin token, its
// own connection) and notes when each pod of a set first shows phase Running
// in its status: the "status in the API says Running" clock of
// bench/cluster.mjs. Started before the pods are posted (from the list's
// resourceVersion), so no event is missed. Bounded by `timeoutMs`; stop()
// closes the stream.
import { Client } from 'undici';
import { BenchError, ms, now } from './common.mjs';

/**
 * Resolves once the watch is open: { done: Promise<Map<name, ms after t0()>>, stop() }.
 * `want`: the pod names; `t0()`: the hrtime the times are relative to (read at each event).
 */
export async function watchPodsRunning({ url, ca, token, namespace, want, t0, timeoutMs, what }) {
  const client = new Client(url, { connect: { ca }, bodyTimeout: 0 });
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
  const base = `/api/v1/namespaces/${namespace}/pods`;
  const list = await client.request({ path: `${base}?limit=500`, method: 'GET', headers });
  const listed = await list.body.json();
  if (list.statusCode !== 200) {
    await client.close();
    throw new BenchError(`${what}: GET ${base}: ${list.statusCode}`);
  }
  const ac = new AbortController();
  const res = await client.request({ path: `${base}?watch=1&resourceVersion=${listed.metadata.resourceVersion}&timeoutSeconds=${Math.ceil(timeoutMs / 1000) + 60}`, method: 'GET', headers, signal: ac.signal });
  if (res.statusCode !== 200) {
    await client.close();
    throw new BenchError(`${what}: watch ${base}: ${res.statusCode}`);
  }
  const running = new Map();
  let timer;
  const stop = () => {
    clearTimeout(timer);
    ac.abort();
    client.destroy().catch(() => {});
  };
  const done = (async () => {
    let buf = '';
    const timeout = new Promise((_, rej) => (timer = setTimeout(() => rej(new BenchError(`${what}: ${running.size}/${want.size} pods Running in the API after ${timeoutMs} ms`)), timeoutMs)));
    const read = (async () => {
      for await (const chunk of res.body) {
        buf += chunk.toString('utf8');
        let nl;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line.trim() === '') continue;
          const ev = JSON.parse(line);
          const pod = ev.object;
          const name = pod?.metadata?.name;
          if ((ev.type === 'ADDED' || ev.type === 'MODIFIED') && want.has(name) && !running.has(name) && pod.status?.phase === 'Running') running.set(name, ms(t0(), now()));
          if (running.size === want.size) return running;
        }
      }
      throw new BenchError(`${what}: the watch ended with ${running.size}/${want.size} pods Running`);
    })();
    try {
      return await Promise.race([read, timeout]);
    } finally {
      stop();
    }
  })();
  done.catch(() => {});
  return { done, stop };
}
