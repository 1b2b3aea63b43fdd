// Pods (core/v1, + status, binding, eviction): validated by the agent's own
// pod validation, defaulted as the API defaults them, created Pending with
// their QoS class, deleted gracefully once bound to a node (the agent then
// deletes with grace 0), selectable by spec.nodeName and status.phase.
import type { Strategy } from '../types.js';
import { OBJECT_VERBS, STATUS_VERBS, str } from './common.js';
import { defaultPodSpec, podGracePeriod, podQos, validatePodObject, validatePodSpecUpdate, validatePodStatus } from './pod-rules.js';

export const pods: Strategy = {
  info: {
    group: '',
    version: 'v1',
    resource: 'pods',
    kind: 'Pod',
    singular: 'pod',
    namespaced: true,
    verbs: OBJECT_VERBS,
    shortNames: ['po'],
    categories: ['all'],
    subresources: [
      { name: 'status', kind: 'Pod', verbs: STATUS_VERBS },
      { name: 'binding', kind: 'Binding', verbs: ['create'] },
      { name: 'eviction', kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] },
    ],
  },
  nameRule: 'subdomain',
  allowCreateOnUpdate: false,
  returnDeletedObject: true,
  selectableFields: ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'status.phase', 'status.podIP', 'status.nominatedNodeName'],
  prepareForCreate(obj) {
    // The defaults first (they are idempotent, so the store's own call after this is a no-op): the
    // QoS class is read from the decode that the validation then reuses.
    defaultPodSpec(obj);
    const qos = podQos(obj);
    obj.status = { phase: 'Pending', ...(qos === undefined ? {} : { qosClass: qos }) };
  },
  defaults: defaultPodSpec,
  validate: (obj) => [...validatePodObject(obj), ...validatePodStatus(obj)],
  validateUpdate: validatePodSpecUpdate,
  validateStatusUpdate: (obj) => validatePodStatus(obj),
  fields: (obj) => ({
    'spec.nodeName': str(obj, 'spec', 'nodeName'),
    'spec.restartPolicy': str(obj, 'spec', 'restartPolicy'),
    'spec.schedulerName': str(obj, 'spec', 'schedulerName'),
    'spec.serviceAccountName': str(obj, 'spec', 'serviceAccountName'),
    'status.phase': str(obj, 'status', 'phase'),
    'status.podIP': str(obj, 'status', 'podIP'),
    'status.nominatedNodeName': str(obj, 'status', 'nominatedNodeName'),
  }),
  gracePeriod: podGracePeriod,
};
