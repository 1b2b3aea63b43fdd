// Content negotiation in one place (§4.7, §4.8, §4.9, §4.12): which
// representation a response gets from `Accept`, which codec reads a request
// body from `Content-Type`, and whether a response is gzipped. The server
// calls these once per request before encoding; the agent's client uses the
// same media type names. Pure; errors are ApiErrors with upstream's texts
// (406 NotAcceptable, 415 UnsupportedMediaType, 400 for includeObject).
import { apiErrors, type ApiError } from './errors.js';

export const MEDIA_JSON = 'application/json';
export const MEDIA_YAML = 'application/yaml';
export const MEDIA_PROTOBUF = 'application/vnd.platform.protobuf';
export type MediaType = typeof MEDIA_JSON | typeof MEDIA_YAML | typeof MEDIA_PROTOBUF;

export const PATCH_JSON = 'application/json-patch+json';
export const PATCH_MERGE = 'application/merge-patch+json';
export const PATCH_STRATEGIC = 'application/strategic-merge-patch+json';
export const PATCH_APPLY = 'application/apply-patch+yaml';
export type PatchType = typeof PATCH_JSON | typeof PATCH_MERGE | typeof PATCH_STRATEGIC | typeof PATCH_APPLY;
/** Upstream's order, as its 415 message lists them. */
export const PATCH_TYPES: readonly PatchType[] = [PATCH_JSON, PATCH_MERGE, PATCH_STRATEGIC, PATCH_APPLY];

const SERVED: readonly MediaType[] = [MEDIA_JSON, MEDIA_YAML, MEDIA_PROTOBUF];

/** One clause of an Accept header. */
export interface AcceptClause {
  type: string;
  subtype: string;
  /** Parameters other than q, lower-cased names. */
  params: Readonly<Record<string, string>>;
  q: number;
}

/** Parses `Accept`; clauses in order of preference (q desc, then specificity, then position). */
export function parseAccept(header: string | undefined): AcceptClause[] {
  if (header === undefined || header.trim() === '') return [];
  const out: Array<AcceptClause & { pos: number }> = [];
  header.split(',').forEach((raw, pos) => {
    const [range = '', ...rest] = raw.split(';').map((s) => s.trim());
    if (range === '') return;
    const slash = range.indexOf('/');
    const type = (slash < 0 ? range : range.slice(0, slash)).toLowerCase();
    const subtype = (slash < 0 ? '*' : range.slice(slash + 1)).toLowerCase();
    const params: Record<string, string> = {};
    let q = 1;
    for (const p of rest) {
      const eq = p.indexOf('=');
      const k = (eq < 0 ? p : p.slice(0, eq)).trim().toLowerCase();
      const v = (eq < 0 ? '' : p.slice(eq + 1)).trim().replace(/^"(.*)"$/, '$1');
      if (k === '') continue;
      if (k === 'q') {
        const n = Number(v);
        q = Number.isFinite(n) ? Math.min(Math.max(n, 0), 1) : 0;
      } else params[k] = v;
    }
    out.push({ type, subtype, params, q, pos });
  });
  const specificity = (c: AcceptClause): number => (c.type === '*' ? 0 : c.subtype === '*' ? 1 : 2);
  out.sort((a, b) => b.q - a.q || specificity(b) - specificity(a) || a.pos - b.pos);
  return out.map(({ pos: _pos, ...c }) => c);
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableTarget {
  /** `v1` or `v1beta1` of meta.platform.io. */
  version: 'v1' | 'v1beta1';
  includeObject: IncludeObject;
}

export interface OutputChoice {
  /** The representation to encode with. */
  mediaType: MediaType;
  /** The response Content-Type header value. */
  contentType: string;
  /** Set when the client asked for a Table (only with JSON or YAML). */
  table: TableTarget | undefined;
  pretty: boolean;
}

export interface NegotiateInput {
  accept: string | undefined;
  /** A watch: only streamable representations (JSON, protobuf). */
  watch: boolean;
  /** The `includeObject` query parameter, if given. */
  includeObject: string | null;
  /** The resource has a protobuf form (false for types without a schema there). */
  protobuf?: boolean;
}

function matchTypes(c: AcceptClause, offered: readonly MediaType[]): MediaType[] {
  return offered.filter((m) => {
    const [t, s] = m.split('/') as [string, string];
    return (c.type === '*' && c.subtype === '*') || (c.type === t && (c.subtype === '*' || c.subtype === s));
  });
}

/** The Table version a clause's `as`/`g`/`v` ask for; false for any other conversion. */
function tableVersion(c: AcceptClause): TableTarget['version'] | false {
  const v = c.params['v'];
  if (c.params['as'] !== 'Table' || c.params['g'] !== 'meta.platform.io' || (v !== 'v1' && v !== 'v1beta1')) return false;
  return v;
}

function includeObjectOf(v: string | null): IncludeObject {
  if (v === null || v === '') return 'Metadata';
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  throw apiErrors.badRequest(`Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(v)}: must be 'Metadata', 'Object', 'None', or empty`);
}

/** The media types a 406 lists for this kind of request. */
export function acceptedList(watch: boolean, protobuf = true): string[] {
  if (watch) return (protobuf ? [MEDIA_JSON, MEDIA_PROTOBUF] : [MEDIA_JSON]).map((m) => `${m};stream=watch`);
  return protobuf ? [...SERVED] : [MEDIA_JSON, MEDIA_YAML];
}

/**
 * Picks the response representation as upstream's negotiation does: clauses
 * in preference order, and within a clause the served types in order (JSON,
 * YAML, protobuf); no `Accept` means JSON. A type is skipped for a clause
 * asking for a conversion other than Table in meta.platform.io v1/v1beta1
 * (Table only as JSON or YAML), or for `stream=` other than `watch` (YAML
 * has no stream form). Nothing acceptable → 406 listing the served types;
 * for a watch, a choice without a stream form (YAML) → 406 listing the
 * `;stream=watch` types. A bad `includeObject` is a 400 only when a Table
 * is chosen.
 */
export function negotiateOutput(input: NegotiateInput): OutputChoice {
  const protobuf = input.protobuf ?? true;
  const offered = SERVED.filter((m) => protobuf || m !== MEDIA_PROTOBUF);
  const clauses = parseAccept(input.accept);
  const choose = (mediaType: MediaType, table: TableTarget | undefined, pretty: boolean): OutputChoice => {
    if (input.watch && mediaType === MEDIA_YAML) throw apiErrors.notAcceptable(acceptedList(true, protobuf));
    return { mediaType, contentType: input.watch && mediaType === MEDIA_PROTOBUF ? `${MEDIA_PROTOBUF};stream=watch` : mediaType, table, pretty };
  };
  if (clauses.length === 0) return choose(MEDIA_JSON, undefined, false);
  for (const c of clauses) {
    if (c.q <= 0) continue;
    for (const m of matchTypes(c, offered)) {
      const stream = c.params['stream'];
      if (stream !== undefined && stream !== '' && (stream !== 'watch' || m === MEDIA_YAML)) continue;
      let table: TableTarget | undefined;
      if (c.params['as'] !== undefined && c.params['as'] !== '') {
        const version = tableVersion(c);
        if (version === false || m === MEDIA_PROTOBUF) continue;
        table = { version, includeObject: includeObjectOf(input.includeObject) };
      }
      return choose(m, table, c.params['pretty'] === '1');
    }
  }
  throw apiErrors.notAcceptable(acceptedList(false, protobuf));
}

/**
 * Whether to indent JSON: the `pretty` query value when given, else
 * `;pretty=1` in Accept, else upstream's user-agent rule (curl, Wget and
 * browsers get indented output).
 */
export function wantsPretty(input: { pretty: boolean | undefined; acceptPretty: boolean; userAgent: string | undefined }): boolean {
  if (input.pretty !== undefined) return input.pretty;
  if (input.acceptPretty) return true;
  const ua = input.userAgent ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}

export type BodyKind = { kind: 'object'; mediaType: MediaType } | { kind: 'patch'; patchType: PatchType };

/** The media type of a Content-Type value: lower-cased, parameters dropped. */
export const mediaTypeOf = (contentType: string): string => (contentType.split(';')[0] ?? '').trim().toLowerCase();

/**
 * The codec for a POST/PUT body (`patch` false) or the patch type of a PATCH
 * (`patch` true; `patchTypes` narrows it, e.g. no strategic merge for a type
 * without a schema). A POST/PUT without Content-Type is JSON, as upstream;
 * anything else unknown is 415 listing what is accepted.
 */
export function negotiateInput(contentType: string | undefined, patch: boolean, patchTypes: readonly PatchType[] = PATCH_TYPES): BodyKind {
  const mt = mediaTypeOf(contentType ?? '');
  if (patch) {
    const pt = patchTypes.find((p) => p === mt);
    if (pt === undefined) throw unsupported(contentType ?? '', patchTypes);
    return { kind: 'patch', patchType: pt };
  }
  if (mt === '') return { kind: 'object', mediaType: MEDIA_JSON };
  const m = SERVED.find((s) => s === mt);
  if (m === undefined) throw unsupported(contentType ?? '', SERVED);
  return { kind: 'object', mediaType: m };
}

const unsupported = (ct: string, accepted: readonly string[]): ApiError => apiErrors.unsupportedMediaType(ct, accepted);

/** Whether `Accept-Encoding` allows gzip (token `gzip` or `*` with q > 0, gzip not refused). */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (acceptEncoding === undefined) return false;
  let gzip: number | undefined;
  let star: number | undefined;
  for (const part of acceptEncoding.split(',')) {
    const [name = '', ...params] = part.split(';').map((s) => s.trim());
    const qp = params.find((p) => p.toLowerCase().startsWith('q='));
    const q = qp === undefined ? 1 : Number(qp.slice(2));
    const qv = Number.isFinite(q) ? q : 0;
    if (name.toLowerCase() === 'gzip') gzip = qv;
    else if (name === '*') star = qv;
  }
  return gzip !== undefined ? gzip > 0 : star !== undefined && star > 0;
}

/**
 * §4.7 literally: get and list responses are gzipped when the client accepts
 * gzip and the APIResponseCompression gate is on; no size threshold.
 */
export function shouldGzip(input: { verb: string; acceptEncoding: string | undefined; gateOn: boolean }): boolean {
  return input.gateOn && (input.verb === 'get' || input.verb === 'list') && acceptsGzip(input.acceptEncoding);
}
