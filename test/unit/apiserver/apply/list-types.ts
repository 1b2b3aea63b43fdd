// The ListTypes the apply tests use: what the integrator derives from the
// strategic-merge-patch table for these paths.
import type { ListType, ListTypes } from '../../../../src/apiserver/apply/walk.js';

const TABLE: Record<string, ListType> = {
  'spec.containers': { type: 'map', keys: ['name'] },
  'spec.containers.ports': { type: 'map', keys: ['containerPort', 'protocol'] },
  'spec.containers.env': { type: 'map', keys: ['name'] },
  'metadata.finalizers': { type: 'set' },
  'status.conditions': { type: 'map', keys: ['type'] },
};

export const listTypes: ListTypes = (path) => TABLE[path.join('.')] ?? { type: 'atomic' };
