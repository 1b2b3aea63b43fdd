// Samples GET /healthz at a fixed rate from a worker thread, so the
// benchmark's own work on its main thread (file renames, CRI polls, serving a
// 9 MB body) never delays a request's start or its clock.
//
// A request starts every `intervalMs` whether the one before has answered or
// not (a stalled agent must not thin the samples out); each has `timeoutMs`
// and then counts as a timeout with that latency (a lower bound). A fresh
// connection per request, as a prober without keep-alive makes them.
import http from 'node:http';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

/** Starts sampling `url`; `stop()` resolves with the samples: { t (epoch ms), ms, ok, status?, error? }. */
export function startHealthzSampler(url, { intervalMs = 15, timeoutMs = 1000 } = {}) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { url, intervalMs, timeoutMs } });
  const done = new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`healthz sampler exited (${code}) before it answered`)));
  });
  done.catch(() => {}); // stop() awaits it
  return {
    stop: async () => {
      worker.postMessage('stop');
      const samples = await done;
      await worker.terminate();
      return samples;
    },
  };
}

function one(url, timeoutMs) {
  return new Promise((resolve) => {
    const t = Date.now();
    const t0 = process.hrtime.bigint();
    const took = () => Number(process.hrtime.bigint() - t0) / 1e6;
    let settled = false;
    const finish = (r) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ t, ...r });
    };
    const req = http.get(url, { agent: false, headers: { Connection: 'close' } }, (res) => {
      res.resume();
      res.on('end', () => finish({ ms: took(), ok: res.statusCode === 200, status: res.statusCode }));
      res.on('error', (e) => finish({ ms: took(), ok: false, error: e.code ?? e.message }));
    });
    const timer = setTimeout(() => {
      finish({ ms: timeoutMs, ok: false, error: 'timeout' });
      req.destroy();
    }, timeoutMs);
    req.on('error', (e) => finish({ ms: took(), ok: false, error: e.code ?? e.message }));
  });
}

async function sample({ url, intervalMs, timeoutMs }) {
  let stopping = false;
  parentPort.once('message', () => (stopping = true));
  const pending = [];
  const start = performance.now();
  // Bounded: the main thread always sends stop; this cap only guards against a lost message.
  for (let i = 0; !stopping && i < 1_000_000; i++) {
    pending.push(one(url, timeoutMs));
    const wait = start + (i + 1) * intervalMs - performance.now();
    await new Promise((r) => setTimeout(r, Math.max(0, wait)));
  }
  parentPort.postMessage(await Promise.all(pending));
}

if (!isMainThread && workerData?.url) await sample(workerData);
