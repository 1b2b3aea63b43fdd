// The pod subresources that are operations, not objects: `binding` (assigns
// a pending pod to a node, as the scheduler does; 409 when already bound or
// being deleted) and `eviction` (policy/v1 Eviction: deletes the pod with the
// eviction's deleteOptions; there are no PodDisruptionBudgets to consult).
// Both answer a Success Status with code 201, as upstream. Not idempotent:
// a second binding to the same node is a 409.
import { apiErrors, type FieldError, type Status } from '../../../api/errors.js';
import type { GenericStore } from '../store.js';
import type { ApiObject, DeleteOptions, WriteOptions } from '../types.js';
import { timestamp } from '../object.js';
import { rec, str } from './common.js';

const created = (): Status => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });

export async function bindPod(pods: GenericStore, namespace: string, name: string, binding: ApiObject, opts: WriteOptions = {}): Promise<Status> {
  if ((binding.metadata?.name ?? '') !== name) throw apiErrors.badRequest('name in URL does not match name in Binding object');
  const target = rec(binding, 'target');
  const errs: FieldError[] = [];
  const kind = str(target, 'kind');
  if (kind !== '' && kind !== 'Node') errs.push({ type: 'FieldValueNotSupported', field: 'target.kind', value: kind, supported: ['Node', '<empty>'] });
  const node = str(target, 'name');
  if (node === '') errs.push({ type: 'FieldValueRequired', field: 'target.name' });
  if (errs.length > 0) throw apiErrors.invalid({ group: '', kind: 'Binding' }, name, errs);
  const gr = { group: '', resource: 'pods' };
  const now = timestamp(pods.ctx.clock.now());
  // One bookkeeping write, as upstream's setPodHostAndAnnotations: spec.nodeName (which a client's
  // update may not change), the binding's annotations and the PodScheduled condition together.
  await pods.systemUpdate(
    namespace,
    name,
    (pod) => {
      if (pod.metadata.deletionTimestamp !== undefined) throw apiErrors.conflict(gr, name, `pod ${name} is being deleted, cannot be assigned to a host`);
      const bound = str(pod, 'spec', 'nodeName');
      if (bound !== '') throw apiErrors.conflict(gr, name, `pod ${name} is already assigned to node ${JSON.stringify(bound)}`);
      pod.spec = { ...(rec(pod, 'spec') ?? {}), nodeName: node };
      const annotations = rec(binding, 'metadata', 'annotations');
      if (annotations !== undefined) pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), ...(annotations as Record<string, string>) };
      const status = rec(pod, 'status') ?? {};
      const conditions = (Array.isArray(status.conditions) ? status.conditions : []).filter((c) => rec(c)?.type !== 'PodScheduled');
      pod.status = { ...status, conditions: [...conditions, { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now }] };
    },
    opts,
  );
  return created();
}

export async function evictPod(pods: GenericStore, namespace: string, name: string, eviction: ApiObject, opts: WriteOptions = {}): Promise<Status> {
  if ((eviction.metadata?.name ?? '') !== name) throw apiErrors.badRequest('name in URL does not match name in Eviction object');
  const given = rec(eviction, 'deleteOptions') ?? {};
  const options: DeleteOptions = { dryRun: opts.dryRun === true };
  if (typeof given.gracePeriodSeconds === 'number') options.gracePeriodSeconds = given.gracePeriodSeconds;
  if (typeof given.propagationPolicy === 'string') options.propagationPolicy = given.propagationPolicy;
  const pre = rec(given, 'preconditions');
  if (pre !== undefined) options.preconditions = { ...(typeof pre.uid === 'string' ? { uid: pre.uid } : {}), ...(typeof pre.resourceVersion === 'string' ? { resourceVersion: pre.resourceVersion } : {}) };
  await pods.delete(namespace, name, options);
  return created();
}
