// The default Table (§2.4, §4.8): two columns, Name (string) and Created At
// (date), and per row the object as `includeObject` asks: None, Metadata (a
// PartialObjectMetadata, the default) or Object. Pure; resources with their
// own columns can come later as a strategy hook.
import { apiErrors } from '../../api/errors.js';
import type { ApiObject, ObjectList } from './types.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

const INCLUDE: readonly IncludeObject[] = ['Metadata', 'None', 'Object'];

export const TABLE_API_VERSION = 'meta.platform.io/v1';

export const DEFAULT_COLUMNS = [
  {
    name: 'Name',
    type: 'string',
    format: 'name',
    description:
      'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated.',
    priority: 0,
  },
  {
    name: 'Created At',
    type: 'date',
    format: '',
    description:
      'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists.',
    priority: 0,
  },
] as const;

export interface TableRow {
  cells: unknown[];
  object?: ApiObject;
}

export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  columnDefinitions: typeof DEFAULT_COLUMNS;
  rows: TableRow[];
}

/** `includeObject` from the query (absent → Metadata); 400 with upstream's wording for anything else. */
export function parseIncludeObject(value: string | undefined): IncludeObject {
  if (value === undefined || value === '') return 'Metadata';
  if ((INCLUDE as readonly string[]).includes(value)) return value as IncludeObject;
  throw apiErrors.badRequest(`Unable to convert to Table as requested: includeObject: Unsupported value: ${JSON.stringify(value)}: supported values: ${INCLUDE.map((v) => JSON.stringify(v)).join(', ')}`);
}

function rowObject(obj: ApiObject, include: IncludeObject): ApiObject | undefined {
  switch (include) {
    case 'None':
      return undefined;
    case 'Object':
      return obj;
    case 'Metadata':
      return { kind: 'PartialObjectMetadata', apiVersion: TABLE_API_VERSION, metadata: obj.metadata };
  }
}

/** A Table of a list (its ListMeta kept) or of one object (its resourceVersion). */
export function buildTable(source: ObjectList | ApiObject, include: IncludeObject = 'Metadata'): Table {
  const isList = Array.isArray((source as Partial<ObjectList>).items);
  const items = isList ? (source as ObjectList).items : [source as ApiObject];
  const rows = items.map((obj) => {
    const object = rowObject(obj, include);
    return { cells: [obj.metadata.name ?? '', obj.metadata.creationTimestamp ?? null], ...(object === undefined ? {} : { object }) };
  });
  const rv = (source as ApiObject).metadata.resourceVersion;
  const metadata = isList ? { ...(source as ObjectList).metadata } : rv === undefined ? {} : { resourceVersion: rv };
  return { kind: 'Table', apiVersion: TABLE_API_VERSION, metadata, columnDefinitions: DEFAULT_COLUMNS, rows };
}
