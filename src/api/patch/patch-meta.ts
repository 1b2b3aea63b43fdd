// The strategic-merge-patch schema: for a kind, which fields merge lists by
// a key (`conditions` by `type`), which merge primitive lists (`finalizers`)
// and which nested message each field is, from the generated table
// (scripts/gen-patch-meta.mjs over the upstream protos). A field without an
// entry is replaced as a whole when it is a list and merged when a map, as
// upstream does for fields without patch tags. Pure lookups.

/** One field's metadata: t = message type, s = patch strategy, k = merge key. */
export interface FieldMeta {
  readonly t?: string;
  readonly s?: string;
  readonly k?: string;
}
export type PatchMessages = Readonly<Record<string, Readonly<Record<string, FieldMeta>>>>;

/** A position in the schema: the message an object at this path is, if known. */
export interface PatchSchema {
  /** Metadata of `field` of this object: strategy, merge key, and the schema below it. */
  field(name: string): { strategy: string; mergeKey: string; retainKeys: boolean; schema: PatchSchema };
}

/** The schema of an object with no known type: every list is replaced, every map merged. */
export const UNTYPED: PatchSchema = { field: () => ({ strategy: '', mergeKey: '', retainKeys: false, schema: UNTYPED }) };

/** A schema over a message table (the generated one, or a test's). */
export function schemaFor(messages: PatchMessages, message: string | undefined): PatchSchema {
  if (message === undefined || messages[message] === undefined) return UNTYPED;
  const fields = messages[message]!;
  return {
    field: (name) => {
      const f = Object.prototype.hasOwnProperty.call(fields, name) ? fields[name]! : {};
      // `merge,retainKeys`: retainKeys only tells the two-way diff to emit $retainKeys; applying honours the directive anywhere.
      const parts = (f.s ?? '').split(',');
      const strategy = parts.includes('merge') ? 'merge' : parts.includes('replace') ? 'replace' : '';
      return { strategy, mergeKey: f.k ?? '', retainKeys: parts.includes('retainKeys'), schema: schemaFor(messages, f.t) };
    },
  };
}
