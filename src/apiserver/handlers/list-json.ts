// JSON list pages from each item's JSON bytes, kept between requests: a page
// of 500 pods otherwise decodes 500 protobuf envelopes and stringifies 500
// objects on every request. An item's bytes are keyed by its storage key and
// the revision that wrote it (key + modRevision name one value for good in a
// store), so a write never serves stale JSON: the next list sees a new
// revision and renders again. The memory is bounded (bytes, the oldest
// inserted evicted first; Buffers, so outside the JS heap but in the RSS);
// the bytes are what the response is made of, so a hit costs one copy into
// the page. Synchronous; no timers. Called by the list handler only.

export const DEFAULT_JSON_CACHE_BYTES = 32 * 1024 * 1024;

/** One stored value as the cache sees it. */
export interface CachedValue {
  key: string;
  modRevision: number;
}

export class JsonItemCache {
  private readonly entries = new Map<string, { rev: number; json: Buffer }>();
  private bytes = 0;

  constructor(private readonly maxBytes: number = DEFAULT_JSON_CACHE_BYTES) {}

  /** `kv`'s JSON: cached, or `render()`ed and kept (a newer revision replaces an older one, never the reverse). */
  json(kv: CachedValue, render: () => string): Buffer {
    const e = this.entries.get(kv.key);
    if (e !== undefined && e.rev === kv.modRevision) return e.json;
    const json = Buffer.from(render());
    if (e !== undefined && e.rev > kv.modRevision) return json;
    if (e !== undefined) {
      this.entries.delete(kv.key);
      this.bytes -= e.json.length;
    }
    if (json.length > this.maxBytes) return json;
    this.entries.set(kv.key, { rev: kv.modRevision, json });
    this.bytes += json.length;
    for (const [key, old] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(key);
      this.bytes -= old.json.length;
    }
    return json;
  }

  /** What is held (tests, diagnostics). */
  size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}

const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

/**
 * The JSON of `{apiVersion, kind, metadata, items}` with `items` given as
 * their JSON bytes: the same bytes as JSON.stringify of the list object.
 */
export function jsonListBytes(head: { apiVersion: string; kind: string; metadata: object }, items: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`{"apiVersion":${JSON.stringify(head.apiVersion)},"kind":${JSON.stringify(head.kind)},"metadata":${JSON.stringify(head.metadata)},"items":[`)];
  items.forEach((item, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(item);
  });
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

const caches = new WeakMap<object, JsonItemCache>();

/** The cache of one store (by identity: a fresh store starts empty; nothing outlives it). */
export function jsonCacheOf(owner: object): JsonItemCache {
  let c = caches.get(owner);
  if (c === undefined) {
    c = new JsonItemCache();
    caches.set(owner, c);
  }
  return c;
}
