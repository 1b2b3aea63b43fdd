// The body-dependent half of upstream's NodeRestriction admission (the
// request-line half is in authz/node.ts): a node creates only mirror pods
// bound to itself, owned by its Node (controller, no blockOwnerDeletion) and
// referencing no accounts, secrets, configmaps or claims; it creates only its
// own Node. Pure; the reason string is the 403's, undefined when admitted or
// when the user is not a node.
import type { ApiError } from '../../api/errors.js';
import { apiErrors } from '../../api/errors.js';
import { podReferences, secretUses } from '../authz/pod-references.js';
import { nodeNameOf } from '../authz/node.js';
import type { UserInfo } from '../types.js';
import { MIRROR_POD_ANNOTATION, arr } from './pod-shape.js';
import type { PodLike } from './pod-shape.js';

export function nodePodCreateReason(node: string, pod: PodLike): string | undefined {
  const q = JSON.stringify(node);
  if (pod.metadata?.annotations?.[MIRROR_POD_ANNOTATION] === undefined) return `pod does not have "${MIRROR_POD_ANNOTATION}" annotation, node ${q} can only create mirror pods`;
  if (pod.spec?.nodeName !== node) return `node ${q} can only create pods with spec.nodeName set to itself`;
  const owners = arr(pod.metadata?.ownerReferences);
  if (owners.length > 1) return `node ${q} can only create pods with a single owner reference set to itself`;
  const owner = owners[0];
  if (owner === undefined || owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node) return `node ${q} can only create pods with an owner reference set to itself`;
  if (owner.controller !== true) return `node ${q} can only create pods with a controller owner reference set to itself`;
  if (owner.blockOwnerDeletion === true) return `node ${q} must not set blockOwnerDeletion on an owner reference`;
  const refs = podReferences(pod);
  if (refs.serviceAccount !== '') return `node ${q} can not create pods that reference a service account`;
  if (secretUses(pod).length > 0) return `node ${q} can not create pods that reference secrets`;
  if (refs.configMaps.size > 0) return `node ${q} can not create pods that reference configmaps`;
  if (arr(pod.spec?.volumes).some((v) => v.persistentVolumeClaim !== undefined)) return `node ${q} can not create pods that reference persistentvolumeclaims`;
  return undefined;
}

/** Pods and Nodes created by a node identity; other users and resources pass. */
export function admitNodeCreate(user: UserInfo, resource: 'pods' | 'nodes', obj: PodLike): ApiError | undefined {
  const node = nodeNameOf(user);
  if (node === undefined || node === '') return undefined;
  const name = obj.metadata?.name ?? '';
  if (resource === 'nodes') {
    return name === node ? undefined : apiErrors.forbidden({ group: '', resource: 'nodes' }, name, `node ${JSON.stringify(node)} is not allowed to modify node ${JSON.stringify(name)}`);
  }
  const why = nodePodCreateReason(node, obj);
  return why === undefined ? undefined : apiErrors.forbidden({ group: '', resource: 'pods' }, name, why);
}
