// The rest layer (issue 17 items 3, 5, 7): Transport → a ResourceClient per
// resource type and namespace. The agent's composition root calls
// createRestClient once per connection; resource() is cheap and may be
// called per use. The client's only state is the set of types that refused
// protobuf (406), shared by all its ResourceClients; nothing here holds
// timers or connections beyond an open watch (closed by its owner).
import type { ApiCodec, ApiObject } from '../../api/codec/index.js';
import type { ClientLog, ListOptions, ResourceClient, ResourceType, Transport } from '../types.js';
import { getTable, get, list, listAll, watch, type TableResult } from './reads.js';
import { createRepresentations } from './representation.js';
import type { Scope } from './scope.js';
import { create, del, deleteCollection, patch, update, updateWithRetry } from './writes.js';

export { RESOURCES, apiVersionOf, resourcePath } from './resources.js';
export { ClientRequestError, isClientRequestError } from '../errors.js';
export { DEFAULT_PAGE_SIZE } from './list.js';
export { DEFAULT_UPDATE_ATTEMPTS } from './writes.js';
export { MAX_EVENT_BYTES } from './watch-events.js';
export { ACCEPT_TABLE } from './representation.js';
export type { TableResult } from './reads.js';

export interface RestClientOptions {
  transport: Transport;
  codec: ApiCodec;
  /** `--platform-api-content-type`: protobuf for the types the codec knows, JSON for the rest. */
  contentType: 'application/json' | 'application/vnd.platform.protobuf';
  log: ClientLog;
}

/** A ResourceClient plus Table requests (§4.8), which only tools and the agent's own server need. */
export interface RestResourceClient extends ResourceClient {
  /** A Table of one object (`name`) or of the collection (`name` ''), or the plain answer when the type has none. */
  getTable(name: string, opts?: ListOptions): Promise<TableResult>;
}

export interface RestClient {
  /** Verbs on `type` in `namespace` ('' or absent: cluster-scoped, or all namespaces for reads). */
  resource(type: ResourceType, namespace?: string): RestResourceClient;
}

export function createRestClient(opts: RestClientOptions): RestClient {
  const ctx = { transport: opts.transport, codec: opts.codec, log: opts.log, reps: createRepresentations(opts) };
  return {
    resource(type, namespace = '') {
      const s: Scope = { ctx, type, namespace: type.namespaced ? namespace : '' };
      return {
        type,
        namespace: s.namespace,
        get: (name, o) => get(s, name, o),
        list: (o) => list(s, o),
        listAll: (o) => listAll(s, o),
        watch: (o) => watch(s, o),
        getTable: (name, o) => getTable(s, name, o),
        create: (obj: ApiObject, o) => create(s, obj, o),
        update: (obj, o) => update(s, obj, o),
        updateWithRetry: (name, mutate, o) => updateWithRetry(s, name, mutate, o),
        patch: (name, type_, body, o) => patch(s, name, type_, body, o),
        delete: (name, o) => del(s, name, o),
        deleteCollection: (o) => deleteCollection(s, o),
      };
    },
  };
}
