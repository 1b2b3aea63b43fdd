// The node authorizer (upstream's node authorizer plus the parts of the
// NodeRestriction admission plugin that the request line already decides):
// a user `system:node:<name>` in group `system:nodes` reads what its pods need
// and writes only its own Node, Lease and its pods' status. The decision is
// pure (decideNodeRequest); what needs the pod graph (is pod P bound to me,
// does one of my pods reference secret S) is a question the injected NodeGraph
// answers. Body-dependent checks (a created pod is a mirror pod bound to the
// node, a created Node has the node's name) are in admission/node-restriction.ts.
import type { AuthorizationAttributes, Authorizer, Decision } from '../types.js';
import { podReferencesObject } from './pod-references.js';
import type { ReferencedKind } from './pod-references.js';

export const SYSTEM_NODES = 'system:nodes';
export const NODE_USER_PREFIX = 'system:node:';
export const NODE_LEASE_NAMESPACE = 'platform-node-lease';

/** The node name of a node identity; undefined when the user is not a node ('' when it is, but unnamed). */
export function nodeNameOf(user: { name: string; groups: readonly string[] }): string | undefined {
  if (!user.groups.includes(SYSTEM_NODES) || !user.name.startsWith(NODE_USER_PREFIX)) return undefined;
  return user.name.slice(NODE_USER_PREFIX.length);
}

/** What the authorizer must look up before deciding. */
export type GraphQuestion = { kind: 'podBound'; namespace: string; pod: string } | { kind: 'referenced'; ref: ReferencedKind; namespace: string; name: string };

export type NodeVerdict = { decision: Decision } | { ask: GraphQuestion };

const allow: NodeVerdict = { decision: { allowed: true, reason: '' } };
const noOpinion = (reason = ''): NodeVerdict => ({ decision: { allowed: false, noOpinion: true, reason } });
const deny = (reason: string): NodeVerdict => ({ decision: { allowed: false, noOpinion: false, reason } });
const has = (list: readonly string[], v: string): boolean => list.includes(v);

function readNamespaced(attrs: AuthorizationAttributes, ref: ReferencedKind): NodeVerdict {
  if (!has(['get', 'list', 'watch'], attrs.verb)) return deny('can only read resources of this type');
  if (attrs.subresource !== '') return deny('cannot read subresource');
  if (attrs.namespace === '') return deny('can only read namespaced object of this type');
  if (attrs.name === '') return deny('No Object name found');
  return { ask: { kind: 'referenced', ref, namespace: attrs.namespace, name: attrs.name } };
}

function serviceAccounts(attrs: AuthorizationAttributes): NodeVerdict {
  if (attrs.verb === 'get' && attrs.subresource === '' && attrs.name !== '') return { ask: { kind: 'referenced', ref: 'serviceaccounts', namespace: attrs.namespace, name: attrs.name } };
  if (attrs.verb !== 'create' || attrs.name === '') return deny('can only create tokens for individual service accounts');
  if (attrs.subresource !== 'token') return deny('can only create token subresource of serviceaccount');
  return { ask: { kind: 'referenced', ref: 'serviceaccounts', namespace: attrs.namespace, name: attrs.name } };
}

function leases(attrs: AuthorizationAttributes, node: string): NodeVerdict {
  if (!has(['get', 'create', 'update', 'patch', 'delete'], attrs.verb)) return deny('can only get, create, update, patch, or delete a node lease');
  if (attrs.namespace !== NODE_LEASE_NAMESPACE) return deny(`can only access leases in the ${NODE_LEASE_NAMESPACE} namespace`);
  if (attrs.verb !== 'create' && attrs.name !== node) return deny('can only access node lease with the same name as the requesting node');
  return allow;
}

function pods(attrs: AuthorizationAttributes): NodeVerdict {
  const bound: NodeVerdict = attrs.name === '' ? deny('No Object name found') : { ask: { kind: 'podBound', namespace: attrs.namespace, pod: attrs.name } };
  switch (attrs.subresource) {
    case '':
      if (has(['get', 'list', 'watch', 'create'], attrs.verb)) return allow;
      return attrs.verb === 'delete' ? bound : noOpinion();
    case 'status':
      return has(['update', 'patch'], attrs.verb) ? bound : noOpinion();
    case 'eviction':
      return attrs.verb === 'create' ? bound : noOpinion();
    default:
      return noOpinion();
  }
}

function nodes(attrs: AuthorizationAttributes, node: string): NodeVerdict {
  if (attrs.subresource !== '' && attrs.subresource !== 'status') return noOpinion();
  if (has(['get', 'list', 'watch'], attrs.verb) && attrs.subresource === '') return allow;
  if (attrs.verb === 'create' && attrs.subresource === '') return allow;
  if (has(['get', 'update', 'patch', 'delete'], attrs.verb)) {
    return attrs.name === node ? allow : deny(`node "${node}" is not allowed to modify node "${attrs.name}"`);
  }
  return noOpinion();
}

/** The verdict for one request of a node identity, before any graph lookup. */
export function decideNodeRequest(attrs: AuthorizationAttributes): NodeVerdict {
  const node = nodeNameOf(attrs.user);
  if (node === undefined) return noOpinion();
  if (node === '') return noOpinion(`unknown node for user ${JSON.stringify(attrs.user.name)}`);
  if (!attrs.isResourceRequest) return noOpinion();
  const key = `${attrs.apiGroup}/${attrs.resource}`;
  switch (key) {
    case '/secrets':
      return readNamespaced(attrs, 'secrets');
    case '/configmaps':
      return readNamespaced(attrs, 'configmaps');
    case '/persistentvolumeclaims':
      if (attrs.verb !== 'get') return deny('can only get individual resources of this type');
      return readNamespaced(attrs, 'persistentvolumeclaims');
    case '/serviceaccounts':
      return serviceAccounts(attrs);
    case 'coordination.platform.io/leases':
      return leases(attrs, node);
    case '/pods':
      return pods(attrs);
    case '/nodes':
      return nodes(attrs, node);
    case '/events':
    case 'events.platform.io/events':
      return has(['create', 'update', 'patch'], attrs.verb) ? allow : noOpinion();
    case 'certificates.platform.io/certificatesigningrequests':
      return attrs.subresource === '' && has(['create', 'get', 'list', 'watch'], attrs.verb) ? allow : noOpinion();
    case 'authentication.platform.io/tokenreviews':
    case 'authorization.platform.io/subjectaccessreviews':
    case 'authorization.platform.io/localsubjectaccessreviews':
      return attrs.verb === 'create' ? allow : noOpinion();
    default:
      return noOpinion();
  }
}

/**
 * The pods bound to a node (spec.nodeName), as the registry's pod store (or an
 * index over it) answers. Called for the graph-dependent requests only.
 */
export interface NodeGraph {
  podsOnNode(nodeName: string, namespace: string): Promise<readonly unknown[]>;
}

/** Answers a graph question from the pods bound to the node. Pure. */
export function answerGraphQuestion(q: GraphQuestion, podsOfNode: readonly unknown[]): boolean {
  if (q.kind === 'podBound') return podsOfNode.some((p) => typeof p === 'object' && p !== null && (p as { metadata?: { name?: unknown } }).metadata?.name === q.pod);
  return podsOfNode.some((p) => podReferencesObject(p, q.ref, q.name));
}

export class NodeAuthorizer implements Authorizer {
  readonly #graph: NodeGraph;

  constructor(graph: NodeGraph) {
    this.#graph = graph;
  }

  async authorize(attrs: AuthorizationAttributes): Promise<Decision> {
    const v = decideNodeRequest(attrs);
    if ('decision' in v) return v.decision;
    const node = nodeNameOf(attrs.user) ?? '';
    const ok = answerGraphQuestion(v.ask, await this.#graph.podsOnNode(node, v.ask.namespace));
    return ok ? { allowed: true, reason: '' } : { allowed: false, noOpinion: true, reason: `no relationship found between node '${node}' and this object` };
  }
}
