// The verb handlers of platform-apiserver: given an authenticated, authorized
// request (the front's ApiRequest), find the resource it addresses, negotiate
// the answer's representation once, and run the verb against the registry's
// generic store. Every failure becomes a Status answer; nothing here throws
// to the front. Non-resource GETs are the discovery documents.
import type { ServerResponse } from 'node:http';
import { ApiError, apiErrors } from '../../api/errors.js';
import { negotiateOutput } from '../../api/media.js';
import { WarningCollector } from '../../api/warnings.js';
import type { ApiRequest } from '../types.js';
import { isUpdateSubresource, type HandlerDeps, type RequestContext } from './context.js';
import { headerValue } from './body.js';
import { handlePatch } from './patch.js';
import { handleGet, handleList } from './read.js';
import { sendError, sendObject, type Answer } from './respond.js';
import { handleWatch } from './watch.js';
import { handleCreate, handleDelete, handleDeleteCollection, handleUpdate } from './write.js';
import { handleVirtual } from './virtual.js';

export type { HandlerDeps } from './context.js';
export type { RegistryPort, ResourceEntry, SubresourceAction, WireCodec, GroupVersionKind, DecodedBody, VirtualResource, AdmissionPort, ActionOptions } from './ports.js';

/** upstream's answer for a path no resource serves. */
const notFound = (): ApiError => new ApiError(404, 'NotFound', 'the server could not find the requested resource', { details: {} });

const VERBS: Readonly<Record<string, (ctx: RequestContext) => Promise<void>>> = {
  get: handleGet,
  list: handleList,
  watch: handleWatch,
  create: handleCreate,
  update: handleUpdate,
  patch: handlePatch,
  delete: handleDelete,
  deletecollection: handleDeleteCollection,
};

export function createResourceHandler(deps: HandlerDeps): (req: ApiRequest, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const { info } = req;
    const answer: Answer = {
      res,
      wire: deps.wire,
      choice: undefined,
      verb: info.verb,
      acceptEncoding: headerValue(req.headers['accept-encoding']),
      compression: deps.gates.compression,
      warnings: new WarningCollector(),
    };
    try {
      if (deps.faults !== undefined) {
        if (await deps.faults.route(req, res)) return;
        await deps.faults.before(req.signal);
      }
      if (!info.isResourceRequest) {
        const doc = req.method === 'GET' ? deps.registry.discovery(info.path) : undefined;
        if (doc === undefined) throw notFound();
        sendObject({ ...answer, verb: 'get' }, 200, doc, { group: '', version: 'v1', kind: 'Discovery' });
        return;
      }
      const virtual = deps.registry.virtual?.(info.apiGroup, info.apiVersion, info.resource);
      if (virtual !== undefined) {
        await handleVirtual(req, answer, virtual);
        return;
      }
      const entry = deps.registry.lookup(info.apiGroup, info.apiVersion, info.resource);
      if (entry === undefined) throw notFound();
      const sub = info.subresource;
      if (sub !== '' && entry.actions[sub] === undefined && !isUpdateSubresource(entry, sub)) throw notFound();
      const run = VERBS[info.verb];
      if (run === undefined) throw apiErrors.methodNotSupported({ group: info.apiGroup, resource: info.resource }, info.verb);
      const gvk = { group: entry.info.group, version: entry.info.version, kind: entry.info.kind };
      answer.choice = negotiateOutput({ accept: headerValue(req.headers.accept), watch: info.verb === 'watch', includeObject: req.url.searchParams.get('includeObject'), protobuf: deps.wire.hasProtobuf(gvk) });
      await run({ req, res, info, entry, gvk, deps, answer });
    } catch (err) {
      if (res.headersSent) {
        // A stream already under way (a watch) cannot turn into a Status answer: end it; the client re-watches.
        deps.log.warn('Request failed after its answer started', { path: info.path, verb: info.verb, err: err instanceof Error ? err.message : String(err) });
        res.end();
        return;
      }
      sendError(answer, err);
    }
  };
}
