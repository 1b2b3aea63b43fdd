// Namespaces (core/v1, cluster-scoped, + status, + finalize): created Active
// with the `platform` finalizer in spec (the namespace lifecycle removes it
// once the namespace's content is gone); spec.finalizers and status change
// only through their own paths. Deletion is the namespace lifecycle's
// (namespace-lifecycle.ts), not the generic one.
import type { FieldError } from '../../../api/errors.js';
import { isQualifiedName } from '../../validation/names.js';
import { clone, section } from '../object.js';
import type { ApiObject, Strategy } from '../types.js';
import { OBJECT_VERBS, STATUS_VERBS, rec, str } from './common.js';

export const NAMESPACE_FINALIZER = 'platform';
export const NAMESPACE_NAME_LABEL = 'platform.io/metadata.name';

export function specFinalizers(obj: ApiObject): string[] {
  const f = rec(obj, 'spec')?.finalizers;
  return Array.isArray(f) ? f.filter((x): x is string => typeof x === 'string') : [];
}

export const namespaces: Strategy = {
  info: {
    group: '',
    version: 'v1',
    resource: 'namespaces',
    kind: 'Namespace',
    singular: 'namespace',
    namespaced: false,
    verbs: OBJECT_VERBS.filter((v) => v !== 'deletecollection'),
    shortNames: ['ns'],
    subresources: [
      { name: 'status', kind: 'Namespace', verbs: STATUS_VERBS },
      { name: 'finalize', kind: 'Namespace', verbs: ['update'] },
    ],
  },
  nameRule: 'label',
  allowCreateOnUpdate: false,
  returnDeletedObject: true,
  selectableFields: ['status.phase'],
  prepareForCreate(obj) {
    obj.status = { phase: 'Active' };
    const spec = section(obj, 'spec');
    const finalizers = specFinalizers(obj);
    if (!finalizers.includes(NAMESPACE_FINALIZER)) finalizers.push(NAMESPACE_FINALIZER);
    spec.finalizers = finalizers;
  },
  prepareForUpdate(obj, old) {
    const spec = section(obj, 'spec');
    const before = rec(old, 'spec')?.finalizers;
    if (before === undefined) delete spec.finalizers;
    else spec.finalizers = clone(before);
  },
  defaults(obj) {
    // upstream labels every namespace with its own name (kubernetes.io/metadata.name).
    const name = obj.metadata.name ?? '';
    if (name !== '') obj.metadata.labels = { ...(obj.metadata.labels ?? {}), [NAMESPACE_NAME_LABEL]: name };
  },
  validate(obj) {
    const errs: FieldError[] = [];
    specFinalizers(obj).forEach((f, i) => {
      for (const m of isQualifiedName(f)) errs.push({ type: 'FieldValueInvalid', field: `spec.finalizers[${i}]`, value: f, detail: m });
    });
    const phase = str(obj, 'status', 'phase');
    if (phase !== '' && phase !== 'Active' && phase !== 'Terminating') errs.push({ type: 'FieldValueNotSupported', field: 'status.phase', value: phase, supported: ['Active', 'Terminating'] });
    return errs;
  },
  fields: (obj) => ({ 'status.phase': str(obj, 'status', 'phase') }),
};
