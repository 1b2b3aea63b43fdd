// The recording step of bench/informer.mjs: one watch of the namespace's pods
// from X read raw from the live platform-apiserver, per representation, its
// body kept byte for byte (up to the end of the last expected event) with the
// response headers, for the replay server (bench/lib/informer-replay.mjs).
// The read is timed like a floor contender's, so it doubles as the live
// floor: what the server and the connection deliver, nothing decoded.
import { writeFileSync } from 'node:fs';
import { Pool } from 'undici';
import { BenchError, ms, now } from './common.mjs';
import { eventBounds, eventCounter } from './informer-frames.mjs';
import { procTicks } from './proc.mjs';

/** What each representation's watch asks for: the project's own Accept headers (src/client/rest/representation.ts). */
export const WATCH_ACCEPT = {
  protobuf: 'application/vnd.platform.protobuf, application/json',
  json: 'application/json',
};

/** Response headers the replay must not copy: they describe the live connection, not the stream. */
const HOP_HEADERS = new Set(['transfer-encoding', 'content-length', 'connection', 'keep-alive', 'date']);
const CLOCK_TICKS = 100;

/**
 * Reads the watch from `rv` until `expected` events arrived (or `timeoutMs`),
 * writes the body to `file`; returns { representation, headers, bytes,
 * events, windowMs, eventsPerSecond, cpuMsPerEvent, serverCpuMsPerEvent }.
 * Throws when the stream ends early, is not 200, or its last event does not
 * carry `finalRv` (the recording would not be the backlog).
 */
export async function recordWatch(srv, ns, { representation, rv, finalRv, expected, file, timeoutMs }) {
  const protobuf = representation === 'protobuf';
  const pool = new Pool(srv.url, { connections: 1, connect: { ca: srv.ca } });
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new BenchError(`recording the ${representation} watch from ${rv}: no ${expected} events within ${timeoutMs} ms`)), timeoutMs);
  const chunks = [];
  const counter = eventCounter(protobuf);
  let events = 0;
  try {
    const ticks0 = procTicks(srv.pid);
    const cpu0 = process.cpuUsage();
    const t0 = now();
    const res = await pool.request({ method: 'GET', path: `/api/v1/namespaces/${ns}/pods?watch=true&resourceVersion=${rv}`, headers: { authorization: `Bearer ${srv.token}`, accept: WATCH_ACCEPT[representation] }, signal: ac.signal });
    if (res.statusCode !== 200) throw new BenchError(`recording the ${representation} watch from ${rv}: HTTP ${res.statusCode} ${(await res.body.text()).slice(0, 300)}`);
    for await (const chunk of res.body) {
      chunks.push(chunk);
      events += counter.push(chunk);
      if (events >= expected) break;
    }
    const windowMs = ms(t0, now());
    const cpu = process.cpuUsage(cpu0);
    const serverTicks = procTicks(srv.pid) - ticks0;
    if (events < expected) throw new BenchError(`recording the ${representation} watch from ${rv}: the server ended the stream after ${events} events`);
    const all = Buffer.concat(chunks);
    const last = eventBounds(all, protobuf, expected);
    if (last === undefined || !all.subarray(last[0], last[1]).includes(finalRv)) throw new BenchError(`recording the ${representation} watch from ${rv}: event ${expected} does not carry resourceVersion ${finalRv}`);
    const body = all.subarray(0, last[1]);
    writeFileSync(file, body);
    const headers = Object.fromEntries(Object.entries(res.headers).filter(([k]) => !HOP_HEADERS.has(k)));
    return {
      representation,
      headers,
      bytes: body.length,
      events: expected,
      windowMs,
      eventsPerSecond: Math.round((expected / windowMs) * 1000),
      cpuMsPerEvent: (cpu.user + cpu.system) / 1000 / expected,
      serverCpuMsPerEvent: ((serverTicks / CLOCK_TICKS) * 1000) / expected,
    };
  } finally {
    clearTimeout(timer);
    ac.abort();
    await pool.destroy();
  }
}
