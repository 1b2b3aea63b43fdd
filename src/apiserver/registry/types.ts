// The registry's own small vocabulary: objects as clients send them (plain
// JSON form), the already-classified read semantics the HTTP layer hands in
// (§4.13 is decided there, not here), selections as predicates, watch events,
// and the per-resource Strategy every verb of the generic store consults.
// Nothing here imports the HTTP front or the codecs: the integrator adapts.
import type { FieldError, Status } from '../../api/errors.js';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  [field: string]: unknown;
}

/** One object in JSON form (`{apiVersion, kind, metadata, spec, status, ...}`). */
export interface ApiObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** A `<Kind>List` in JSON form. */
export interface ObjectList {
  apiVersion: string;
  kind: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: ApiObject[];
}

/** How stored values become objects and back; the integrator plugs in the protobuf envelope. */
export interface StorageCodec {
  encode(obj: ApiObject): Uint8Array;
  decode(bytes: Uint8Array): ApiObject;
  /** Only the metadata (for selectors that need no more); undefined when the bytes cannot be read that way (decode them). */
  decodeMetadata?(bytes: Uint8Array): ObjectMeta | undefined;
}

/** Time source (ms since the epoch): timestamps, continue-token age. */
export interface Clock {
  now(): number;
}

/** Read semantics of get and list, classified from the query by the HTTP layer (§4.13). */
export type ReadAt = { kind: 'MostRecent' } | { kind: 'Any' } | { kind: 'NotOlderThan'; rv: number } | { kind: 'Exact'; rv: number } | { kind: 'Continue'; token: string };

/** Where a watch starts (§4.13 watch column, §4.5 rule 6). */
export type WatchStart = { kind: 'StartMostRecent' } | { kind: 'StartAny' } | { kind: 'StartExact'; rv: number } | { kind: 'StreamingList'; rv?: number };

/**
 * Label and field selectors, parsed by the HTTP layer. `labels` sees
 * `metadata.labels`; `fields` sees the strategy's field set (always
 * `metadata.name`, `metadata.namespace`). `fieldNames` are the fields the
 * selector mentions, checked against the strategy (400 for others).
 * `hint` is an exact-match requirement the store may use to narrow its read.
 */
export interface Selection {
  labels?: (labels: Readonly<Record<string, string>>) => boolean;
  fields?: (fields: Readonly<Record<string, string>>) => boolean;
  fieldNames?: readonly string[];
  hint?: { field: string; value: string };
}

export interface ListRequest {
  readAt: ReadAt;
  limit?: number;
  selection?: Selection;
}

export interface WatchRequest {
  start: WatchStart;
  selection?: Selection;
  allowWatchBookmarks?: boolean;
  /** Ends the watch: the iterable returns. */
  signal: AbortSignal;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
export type WatchEvent = { type: Exclude<WatchEventType, 'ERROR'>; object: ApiObject } | { type: 'ERROR'; object: Status };

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

/** DeleteOptions as the body or query gives them. */
export interface DeleteOptions {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: string;
  orphanDependents?: boolean;
  dryRun?: boolean;
}

export interface WriteOptions {
  dryRun?: boolean;
}

export interface UpdateOptions extends WriteOptions {
  /**
   * Applied to the desired object before preparation and validation, with
   * the stored one (undefined when a PUT creates): the handlers record
   * managed fields here, where the old object is known.
   */
  transform?: (desired: ApiObject, old: ApiObject | undefined) => ApiObject;
  /**
   * '' (default): the main resource, leaving status as it was; 'status': only
   * the status; another name: a subresource the strategy declares in
   * `updateSubresources` (a CSR's `approval`).
   */
  subresource?: string;
}

/** How a write through an update-style subresource is merged into the stored object and checked. */
export interface SubresourceUpdate {
  /** The object to store, from the client's body and the stored `old`. */
  merge(body: ApiObject, old: ApiObject): ApiObject;
  validate(obj: ApiObject, old: ApiObject): FieldError[];
}

/** Delete answers the object (ReturnDeletedObject strategies, or one still being finalized) or a Success Status. */
export interface DeleteResult {
  /** False while the object stays (finalizers, graceful deletion). */
  deleted: boolean;
  object: ApiObject | Status;
}

/** One row of the served-resources table that discovery is generated from. */
export interface ResourceInfo {
  group: string;
  version: string;
  resource: string;
  kind: string;
  singular: string;
  namespaced: boolean;
  verbs: readonly string[];
  shortNames?: readonly string[];
  categories?: readonly string[];
  /** Subresources and the verbs and kind of each (`status` → the resource's kind). */
  subresources?: ReadonlyArray<{ name: string; kind: string; verbs: readonly string[]; group?: string; version?: string }>;
  /** Served only with this feature gate on. */
  featureGate?: string;
}

/** Which name syntax `metadata.name` must have (upstream's ValidateNameFunc per resource). */
export type NameRule = 'subdomain' | 'label' | 'path-segment';

/**
 * What one resource adds to the generic store. Every hook is pure (no I/O)
 * and may mutate the object it is given; the store calls them in upstream's
 * order: create → prepareForCreate, defaults, validate; update →
 * prepareForUpdate (or the status variant), defaults, validateUpdate.
 */
export interface Strategy {
  readonly info: ResourceInfo;
  readonly nameRule: NameRule;
  /** PUT of a missing object creates it (upstream's AllowCreateOnUpdate). */
  readonly allowCreateOnUpdate: boolean;
  /** PUT without resourceVersion overwrites (default true, as most upstream strategies). */
  readonly allowUnconditionalUpdate?: boolean;
  /** Delete answers the object instead of a Status. */
  readonly returnDeletedObject?: boolean;
  /** Invalid errors leave values out (secrets). */
  readonly omitValuesInErrors?: boolean;
  /** Field-selector names beyond `metadata.name` and `metadata.namespace`. */
  readonly selectableFields?: readonly string[];
  prepareForCreate?(obj: ApiObject): void;
  /** Main-resource update; status is already restored from `old` when the resource has a status subresource. */
  prepareForUpdate?(obj: ApiObject, old: ApiObject): void;
  defaults?(obj: ApiObject): void;
  validate(obj: ApiObject): FieldError[];
  validateUpdate?(obj: ApiObject, old: ApiObject): FieldError[];
  /** Status-subresource update checks (defaults to validate). */
  validateStatusUpdate?(obj: ApiObject, old: ApiObject): FieldError[];
  /** Update-style subresources other than status, by name (each must also be in `info.subresources`). */
  readonly updateSubresources?: Readonly<Record<string, SubresourceUpdate>>;
  /** Values of `selectableFields` for one object. */
  fields?(obj: ApiObject): Record<string, string>;
  /**
   * Graceful deletion (upstream's CheckGracefulDelete): the grace period in
   * seconds to wait (0 = at once), or undefined when the resource does not
   * delete gracefully.
   */
  gracePeriod?(obj: ApiObject, requested: number | undefined): number | undefined;
}
