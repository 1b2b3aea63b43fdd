// POST to a virtual type (token and access reviews): decoded like any body,
// answered by the type's own function, nothing stored (spec §1 terminology:
// a type that represents an operation).
import { apiErrors } from '../../api/errors.js';
import { negotiateOutput } from '../../api/media.js';
import { parseWriteQuery } from '../../api/list-query.js';
import type { ApiRequest } from '../types.js';
import type { VirtualResource } from './ports.js';
import { sendObject, STATUS_GVK, type Answer } from './respond.js';
import { headerValue } from './body.js';
import { MEDIA_PROTOBUF } from '../../api/media.js';

export async function handleVirtual(req: ApiRequest, answer: Answer, v: VirtualResource): Promise<void> {
  const { info } = req;
  if (info.verb !== 'create' || info.name !== '' || info.subresource !== '') throw apiErrors.methodNotSupported({ group: info.apiGroup, resource: info.resource }, info.verb);
  const gvk = { group: v.info.group, version: v.info.version, kind: v.info.kind };
  answer.choice = negotiateOutput({ accept: headerValue(req.headers.accept), watch: false, includeObject: null, protobuf: answer.wire.hasProtobuf(gvk) });
  const q = parseWriteQuery(req.url.searchParams, 'create');
  const ct = headerValue(req.headers['content-type']) ?? 'application/json';
  const bytes = await req.body();
  const decoded = answer.wire.decodeBody(bytes, ct.startsWith(MEDIA_PROTOBUF) ? MEDIA_PROTOBUF : 'application/json', gvk);
  const out = await v.create(info.namespace, decoded.object, { dryRun: q.dryRun, user: req.user, signal: req.signal });
  sendObject(answer, out.status, out.object, out.object.kind === 'Status' ? STATUS_GVK : gvk);
}
