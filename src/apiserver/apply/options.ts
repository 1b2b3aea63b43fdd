// The request options around managed fields: which manager a write is
// recorded under, and the `fieldManager`/`force` checks kube-apiserver makes
// on PATCH options before it looks at the body. Pure.
import { type ApiError, type FieldError, apiErrors } from '../../api/errors.js';

/** Upstream's FieldManagerMaxLength. */
export const FIELD_MANAGER_MAX_LENGTH = 128;

/** Printable as Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const isPrint = (ch: string): boolean => ch === ' ' || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch);

/**
 * The manager a non-apply write is recorded under when the request names
 * none: the User-Agent up to its first `/`, unprintable characters dropped,
 * cut to 128 bytes; `unknown` when that leaves nothing (kubelet writes
 * appear as `kubelet`).
 */
export function defaultManager(userAgent: string | undefined): string {
  const prefix = (userAgent ?? '').split('/')[0] ?? '';
  let out = '';
  for (const ch of prefix) {
    if (!isPrint(ch)) continue;
    if (Buffer.byteLength(out + ch) > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
  }
  return out === '' ? 'unknown' : out;
}

/** The manager of a write: the `fieldManager` option when given, else defaultManager(userAgent). */
export function managerFor(fieldManager: string | undefined, userAgent: string | undefined): string {
  return fieldManager !== undefined && fieldManager !== '' ? fieldManager : defaultManager(userAgent);
}

/** Upstream's ValidateFieldManager: at most 128 bytes, printable characters only. */
export function validateFieldManager(fieldManager: string | undefined, field = 'fieldManager'): FieldError[] {
  if (fieldManager === undefined) return [];
  const errs: FieldError[] = [];
  if (Buffer.byteLength(fieldManager) > FIELD_MANAGER_MAX_LENGTH) errs.push({ type: 'FieldValueTooLong', field, value: fieldManager, detail: `may not be longer than ${FIELD_MANAGER_MAX_LENGTH}` });
  let i = 0;
  for (const ch of fieldManager) {
    if (!isPrint(ch)) {
      errs.push({ type: 'FieldValueInvalid', field, value: fieldManager, detail: `invalid characters at index ${i}` });
      break;
    }
    i += Buffer.byteLength(ch);
  }
  return errs;
}

/**
 * The PATCH option checks (upstream's ValidatePatchOptions, the parts that
 * concern managers): apply needs `fieldManager`; `force` is for apply only.
 * Returns the 422 to send, or undefined when the options are fine.
 */
export function checkPatchOptions(opts: { apply: boolean; fieldManager: string | undefined; force: boolean | undefined }): ApiError | undefined {
  const errs: FieldError[] = [];
  if (!opts.apply && opts.force !== undefined) errs.push({ type: 'FieldValueForbidden', field: 'force', detail: 'may not be specified for non-apply patch' });
  if (opts.apply && (opts.fieldManager === undefined || opts.fieldManager === '')) errs.push({ type: 'FieldValueRequired', field: 'fieldManager', detail: 'is required for apply patch' });
  errs.push(...validateFieldManager(opts.fieldManager));
  return errs.length === 0 ? undefined : apiErrors.invalid({ group: 'meta.platform.io', kind: 'PatchOptions' }, '', errs);
}
