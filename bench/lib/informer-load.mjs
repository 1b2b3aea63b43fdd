// The load of bench/informer.mjs, against a started platform-apiserver
// (bench/lib/apiserver.mjs): small pods created, the list recorded at its
// resourceVersion X, then modifications applied after X with bounded
// concurrency, and the checks that the server still holds that backlog.
import { writeFileSync } from 'node:fs';
import { Pool } from 'undici';
import { BenchError, ms, now, progress } from './common.mjs';

export const PATCH_MERGE = 'application/merge-patch+json';
/** The annotation each modification sets (a new value every time, so no patch is a no-op). */
export const GEN_ANNOTATION = 'bench.platform.io/gen';

const podName = (i) => `p-${String(i).padStart(5, '0')}`;

/** A small pod: a label or two, one container with requests, bound to a node. */
function podBody(ns, i) {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: podName(i), namespace: ns, labels: { app: 'bench', shard: String(i % 16) } },
    spec: { nodeName: `node-${i % 50}`, containers: [{ name: 'c', image: 'registry.local/app:1.0', resources: { requests: { cpu: '10m', memory: '16Mi' } } }] },
  });
}

/** Runs `count` jobs with at most `width` in flight. */
async function pooled(count, width, job, label) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await job(i);
      if (i % 1000 === 0) progress(`${label} ${i}/${count}`);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  progress('');
}

/** Creates the namespace and `pods` pods; returns writes/s. */
export async function createPods(srv, ns, pods, width) {
  await srv.call('POST', '/api/v1/namespaces', { body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }) });
  const t0 = now();
  await pooled(pods, width, (i) => srv.call('POST', `/api/v1/namespaces/${ns}/pods`, { body: podBody(ns, i) }), 'create');
  return (pods / ms(t0, now())) * 1000;
}

/** GETs the whole list (JSON, one request), writes it to `file`; returns { rv, bytes, podBytes }. */
export async function recordList(srv, ns, pods, file) {
  const body = await srv.call('GET', `/api/v1/namespaces/${ns}/pods`);
  const list = JSON.parse(body.toString());
  if (list.items.length !== pods) throw new BenchError(`the recorded list holds ${list.items.length} pods, not ${pods}`);
  writeFileSync(file, body);
  return { rv: list.metadata.resourceVersion, bytes: body.length, podBytes: Math.round(JSON.stringify(list.items[0]).length) };
}

/**
 * Applies `mods` merge patches, pod i % pods for modification i, `width` in
 * flight; returns { perSecond, finalRv } where finalRv is the highest
 * resourceVersion the patches returned (the last event of the backlog).
 */
export async function modifyPods(srv, ns, { pods, mods, width }) {
  let finalRv = 0n;
  const t0 = now();
  await pooled(
    mods,
    width,
    async (i) => {
      const patch = JSON.stringify({ metadata: { annotations: { [GEN_ANNOTATION]: String(i) } } });
      const pod = JSON.parse((await srv.call('PATCH', `/api/v1/namespaces/${ns}/pods/${podName(i % pods)}`, { body: patch, contentType: PATCH_MERGE })).toString());
      const rv = BigInt(pod.metadata.resourceVersion);
      if (rv > finalRv) finalRv = rv;
    },
    'modify',
  );
  return { perSecond: (mods / ms(t0, now())) * 1000, finalRv: String(finalRv) };
}

/**
 * Opens a JSON watch of the namespace's pods from `rv` and reads its first
 * event: a MODIFIED at a newer version proves the server still has the
 * history after `rv` (an ERROR here is the 410 a contender would meet).
 */
export async function firstEventAfter(srv, ns, rv) {
  const pool = new Pool(srv.url, { connections: 1, connect: { ca: srv.ca } });
  const ac = new AbortController();
  try {
    const res = await pool.request({ method: 'GET', path: `/api/v1/namespaces/${ns}/pods?watch=1&resourceVersion=${rv}`, headers: { authorization: `Bearer ${srv.token}`, accept: 'application/json' }, signal: ac.signal });
    if (res.statusCode !== 200) throw new BenchError(`watch from ${rv}: HTTP ${res.statusCode} ${(await res.body.text()).slice(0, 300)}`);
    let text = '';
    for await (const chunk of res.body) {
      text += chunk.toString();
      const nl = text.indexOf('\n');
      if (nl >= 0) {
        const ev = JSON.parse(text.slice(0, nl));
        ac.abort();
        return { type: ev.type, rv: ev.object?.metadata?.resourceVersion, message: ev.object?.message };
      }
      if (text.length > 1 << 20) break;
    }
    throw new BenchError(`watch from ${rv}: no event`);
  } finally {
    ac.abort();
    await pool.destroy();
  }
}

/**
 * A watch of the namespace's pods from `rv` kept open (its events read and
 * dropped) while the contenders run. Why: the server's shared watch of a
 * resource (src/apiserver/registry/watch-cache.ts) keeps 4 096–8 192 changes
 * for late joiners and ends a watcher that falls 1 024 changes behind; a
 * watch from X with 50 000 changes behind, arriving while that shared watch
 * runs from a later version, is served from storage directly instead (the
 * memory store's log: every change in the history window, read as fast as
 * the stream drains). With no shared watch running, the contender's own
 * watch would start one at X and be cut every ~1 000 events (resumable).
 * Returns stop().
 */
export async function openKeeper(srv, ns, rv) {
  const pool = new Pool(srv.url, { connections: 1, connect: { ca: srv.ca } });
  const ac = new AbortController();
  const res = await pool.request({ method: 'GET', path: `/api/v1/namespaces/${ns}/pods?watch=1&resourceVersion=${rv}&timeoutSeconds=3600`, headers: { authorization: `Bearer ${srv.token}`, accept: 'application/json' }, signal: ac.signal });
  if (res.statusCode !== 200) throw new BenchError(`keeper watch from ${rv}: HTTP ${res.statusCode}`);
  const drained = (async () => {
    for await (const _ of res.body);
  })().catch(() => {});
  return async () => {
    ac.abort();
    await drained;
    await pool.destroy();
  };
}
