// JSON list pages from each item's JSON text, kept between requests: a page
// of 500 pods otherwise decodes 500 protobuf envelopes and stringifies 500
// objects on every request. An item's text is keyed by its storage key and
// the revision that wrote it (key + modRevision name one value for good in a
// store), so a write never serves stale text: the next list sees a new
// revision and renders again. The memory is bounded (characters of text, the
// oldest inserted evicted first); the texts are what the response is made of,
// so a hit costs nothing beyond the page's concatenation. Synchronous; no
// timers. Called by the list handler only.

export const DEFAULT_JSON_CACHE_CHARS = 32 * 1024 * 1024;

/** One stored value as the cache sees it. */
export interface CachedValue {
  key: string;
  modRevision: number;
}

export class JsonItemCache {
  private readonly entries = new Map<string, { rev: number; text: string }>();
  private chars = 0;

  constructor(private readonly maxChars: number = DEFAULT_JSON_CACHE_CHARS) {}

  /** `kv`'s JSON text: cached, or `render()`ed and kept (a newer revision replaces an older one, never the reverse). */
  text(kv: CachedValue, render: () => string): string {
    const e = this.entries.get(kv.key);
    if (e !== undefined && e.rev === kv.modRevision) return e.text;
    const text = render();
    if (e !== undefined && e.rev > kv.modRevision) return text;
    if (e !== undefined) {
      this.entries.delete(kv.key);
      this.chars -= e.text.length;
    }
    if (text.length > this.maxChars) return text;
    this.entries.set(kv.key, { rev: kv.modRevision, text });
    this.chars += text.length;
    for (const [key, old] of this.entries) {
      if (this.chars <= this.maxChars) break;
      this.entries.delete(key);
      this.chars -= old.text.length;
    }
    return text;
  }

  /** Characters held (tests, diagnostics). */
  size(): { entries: number; chars: number } {
    return { entries: this.entries.size, chars: this.chars };
  }
}

/**
 * The JSON of `{apiVersion, kind, metadata, items}` with `items` given as
 * their JSON texts: the same bytes as JSON.stringify of the list object.
 */
export function jsonListText(head: { apiVersion: string; kind: string; metadata: object }, itemTexts: readonly string[]): string {
  return `{"apiVersion":${JSON.stringify(head.apiVersion)},"kind":${JSON.stringify(head.kind)},"metadata":${JSON.stringify(head.metadata)},"items":[${itemTexts.join(',')}]}`;
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
