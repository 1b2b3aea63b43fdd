// Nodes (core/v1, cluster-scoped, + status): registered by the agent with
// its initial status (kept on create, unlike pods), status written through
// the status subresource, selectable by spec.unschedulable.
import type { Strategy } from '../types.js';
import { OBJECT_VERBS, STATUS_VERBS, checkOptionalType, rec } from './common.js';

export const nodes: Strategy = {
  info: {
    group: '',
    version: 'v1',
    resource: 'nodes',
    kind: 'Node',
    singular: 'node',
    namespaced: false,
    verbs: OBJECT_VERBS,
    shortNames: ['no'],
    subresources: [{ name: 'status', kind: 'Node', verbs: STATUS_VERBS }],
  },
  nameRule: 'subdomain',
  allowCreateOnUpdate: false,
  selectableFields: ['spec.unschedulable'],
  validate: (obj) => [...checkOptionalType(rec(obj, 'spec')?.unschedulable, 'boolean', 'spec.unschedulable'), ...checkOptionalType(rec(obj, 'spec')?.podCIDR, 'string', 'spec.podCIDR')],
  fields: (obj) => ({ 'spec.unschedulable': String(rec(obj, 'spec')?.unschedulable === true) }),
};
