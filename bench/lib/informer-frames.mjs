// Events counted in a raw watch body, nothing decoded: JSON carries one event
// per line, protobuf one per 4-byte big-endian length-prefixed frame. Shared
// by the floors (bench/lib/informer-contender.mjs), the recorder
// (bench/lib/informer-record.mjs) and the replay server, so all three count
// the same way.

/**
 * A counter fed the body's chunks in order; push(chunk) returns how many
 * events the chunk completed. Holds at most one partial protobuf frame.
 */
export function eventCounter(protobuf) {
  if (!protobuf) {
    return {
      push(chunk) {
        let n = 0;
        for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) n++;
        return n;
      },
    };
  }
  let pending = Buffer.alloc(0);
  return {
    push(chunk) {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      let off = 0;
      let n = 0;
      while (pending.length - off >= 4 && pending.length - off >= 4 + pending.readUInt32BE(off)) {
        off += 4 + pending.readUInt32BE(off);
        n++;
      }
      pending = pending.subarray(off);
      return n;
    },
  };
}

/**
 * The JSON decode floor's reader: each complete line JSON.parse-d (what any
 * client that reads every event must at least do), nothing else kept.
 * push(chunk) returns how many events the chunk completed.
 */
export function jsonLineParser() {
  let tail = Buffer.alloc(0);
  return {
    push(chunk) {
      const buf = tail.length === 0 ? chunk : Buffer.concat([tail, chunk]);
      let n = 0;
      let start = 0;
      for (let nl = buf.indexOf(10); nl >= 0; nl = buf.indexOf(10, start)) {
        if (nl > start && JSON.parse(buf.toString('utf8', start, nl)) !== null) n++;
        start = nl + 1;
      }
      tail = Buffer.from(buf.subarray(start));
      return n;
    },
  };
}

/** Byte offsets [start, end) of the `n`-th event (1-based) of a whole body, or undefined when it holds fewer. */
export function eventBounds(body, protobuf, n) {
  let start = 0;
  for (let i = 1; i <= n; i++) {
    let end;
    if (protobuf) {
      if (body.length - start < 4) return undefined;
      end = start + 4 + body.readUInt32BE(start);
      if (end > body.length) return undefined;
    } else {
      const nl = body.indexOf(10, start);
      if (nl < 0) return undefined;
      end = nl + 1;
    }
    if (i === n) return [start, end];
    start = end;
  }
  return undefined;
}
