// `Warning` response headers (deprecations, unknown fields under
// fieldValidation=Warn, shortened token lifetimes): parsed with the shared
// parser and logged once per distinct text for the life of the transport, as
// client-go's deduplicating warning logger does. The remembered texts are
// capped (oldest forgotten first), so a server that sends endless distinct
// warnings costs bounded memory. Called once per response; never throws.
import { parseWarnings } from '../../api/warnings.js';
import { describeRequest, type RequestRef } from '../errors.js';
import type { ClientLog } from '../types.js';

export const MAX_REMEMBERED_WARNINGS = 256;

export class WarningLog {
  private readonly seen = new Set<string>();

  constructor(
    private readonly log: ClientLog,
    private readonly capacity = MAX_REMEMBERED_WARNINGS,
  ) {}

  /** Logs the warnings of one response's `Warning` header values not logged before. */
  record(request: RequestRef, values: string | string[] | undefined): void {
    if (values === undefined) return;
    const { warnings, errors } = parseWarnings(Array.isArray(values) ? values : [values]);
    for (const text of [...warnings.map((w) => w.text), ...errors]) {
      if (this.seen.has(text)) continue;
      this.seen.add(text);
      if (this.seen.size > this.capacity) this.seen.delete(this.seen.values().next().value as string);
      this.log.warn(`Warning: ${text}`, { request: describeRequest(request) });
    }
  }
}
