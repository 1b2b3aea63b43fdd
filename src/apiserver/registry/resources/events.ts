// Events (core/v1): what the agent records about pods and nodes. Created by
// PUT as well (upstream's AllowCreateOnUpdate), selectable by the involved
// object and the reason, as `kubectl get events --field-selector` uses them.
import type { FieldError } from '../../../api/errors.js';
import type { ApiObject, Strategy } from '../types.js';
import { OBJECT_VERBS, str } from './common.js';

const INVOLVED = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'];

function validateEvent(obj: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const involvedNs = str(obj, 'involvedObject', 'namespace');
  const ns = obj.metadata.namespace ?? '';
  // upstream (legacy events): a namespaced involved object lives in the event's namespace.
  if (involvedNs !== '' && involvedNs !== ns) errs.push({ type: 'FieldValueInvalid', field: 'involvedObject.namespace', value: involvedNs, detail: 'does not match event.namespace' });
  const type = str(obj, 'type');
  if (type !== '' && type !== 'Normal' && type !== 'Warning') errs.push({ type: 'FieldValueNotSupported', field: 'type', value: type, supported: ['Normal', 'Warning'] });
  return errs;
}

export const events: Strategy = {
  info: { group: '', version: 'v1', resource: 'events', kind: 'Event', singular: 'event', namespaced: true, verbs: OBJECT_VERBS, shortNames: ['ev'] },
  nameRule: 'subdomain',
  allowCreateOnUpdate: true,
  selectableFields: [...INVOLVED.map((f) => `involvedObject.${f}`), 'reason', 'reportingComponent', 'source', 'type'],
  validate: validateEvent,
  fields: (obj) => ({
    ...Object.fromEntries(INVOLVED.map((f) => [`involvedObject.${f}`, str(obj, 'involvedObject', f)])),
    reason: str(obj, 'reason'),
    reportingComponent: str(obj, 'reportingComponent'),
    source: str(obj, 'source', 'component'),
    type: str(obj, 'type'),
  }),
};
