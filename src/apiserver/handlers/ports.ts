// What the verb handlers need from the rest of the server, as small ports:
// the registry (one generic store per served resource, subresource actions,
// discovery documents) and the wire codec (protobuf envelope, strict JSON
// decoding). The composition root adapts the real modules to these, so the
// handlers can be tested with fakes and read without the whole server.
import type { FieldError, Status } from '../../api/errors.js';
import type { GenericStore } from '../registry/store.js';
import type { ApiObject, ObjectList, ResourceInfo } from '../registry/types.js';
import type { UserInfo } from '../types.js';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** A POST to a subresource that is an action (binding, eviction, token, approval...). */
export interface SubresourceAction {
  /** The kind the body must be (`Binding`, `Eviction`, `TokenRequest`, ...) and its group/version. */
  bodyKind: GroupVersionKind;
  /** Runs the action; answers the HTTP status and the object to send. */
  create(namespace: string, name: string, body: ApiObject, opts: ActionOptions): Promise<{ status: number; object: ApiObject | Status }>;
}

export interface ActionOptions {
  dryRun: boolean;
  user: UserInfo;
  signal: AbortSignal;
}

/** A type that represents an operation (reviews): POST only, nothing stored. */
export interface VirtualResource {
  info: ResourceInfo;
  create(namespace: string, body: ApiObject, opts: ActionOptions): Promise<{ status: number; object: ApiObject | Status }>;
}

/**
 * Admission (after decoding, before validation and storage): may mutate the
 * object (a pod's service account and token volume) or refuse it with an
 * ApiError (403). `created` runs after a real (not dry-run) create.
 */
export interface AdmissionPort {
  admit(info: ResourceInfo, obj: ApiObject, old: ApiObject | undefined, opts: ActionOptions & { namespace: string; subresource: string }): Promise<void>;
  created?(info: ResourceInfo, obj: ApiObject): Promise<void>;
}

export interface ResourceEntry {
  info: ResourceInfo;
  store: GenericStore;
  /** `status` is served by the store itself; action subresources are here. */
  actions: Readonly<Record<string, SubresourceAction>>;
}

export interface RegistryPort {
  /** The entry serving `<group>/<version>/<resource>`, or undefined (404). */
  lookup(group: string, version: string, resource: string): ResourceEntry | undefined;
  /** A virtual type served at `<group>/<version>/<resource>` (POST only), or undefined. */
  virtual?(group: string, version: string, resource: string): VirtualResource | undefined;
  /** The discovery document for a non-resource GET path (/api, /apis, /api/v1, /apis/<g>, /apis/<g>/<v>), or undefined. */
  discovery(path: string): object | undefined;
  /** The default Table (§2.4) of objects of one resource. */
  toTable(entry: ResourceEntry, items: readonly ApiObject[], listMeta: ObjectList['metadata'] | undefined, includeObject: 'None' | 'Metadata' | 'Object'): object;
}

export interface DecodedBody {
  object: ApiObject;
  unknownFields: readonly string[];
  duplicateFields: readonly string[];
  typeErrors: readonly FieldError[];
}

export interface WireCodec {
  /** Whether `gvk` has a protobuf form. */
  hasProtobuf(gvk: GroupVersionKind): boolean;
  /** The §4.9 envelope of an object, list or Status. */
  encodeProtobuf(obj: ApiObject | ObjectList | Status, gvk: GroupVersionKind): Buffer;
  /** The envelope of a `<Kind>List` page (`gvk` is the list's) from stored values, none decoded; undefined when they are not stored in that kind's protobuf form. */
  encodeStoredList?(gvk: GroupVersionKind, listMeta: ObjectList['metadata'], values: readonly { value: Uint8Array; modRevision: number }[]): Buffer | undefined;
  /** One protobuf watch frame: length prefix + WatchEvent{type, raw envelope}. */
  encodeWatchFrame(type: string, obj: ApiObject | Status, gvk: GroupVersionKind): Buffer;
  /** A request body in `mediaType` (JSON, YAML or protobuf), decoded against `gvk`'s schema. Throws ApiError (400) for bytes that do not parse. */
  decodeBody(bytes: Buffer, mediaType: string, gvk: GroupVersionKind): DecodedBody;
}
