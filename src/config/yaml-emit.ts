// A small block-style YAML writer for documents made of plain data (maps,
// lists, strings, numbers, booleans, null), with a comment per map entry.
// --print-config runs on every check of a configuration: the yaml library's
// Document model and stringifier cost ~10 ms of a ~150 ms start, this ~1 ms.
// Reading stays with the yaml library (src/config/load.ts).
//
// A string is written plain only where every YAML reader reads it back as
// that string, under YAML 1.1 (what the agent's loader and the kubelet's Go
// reader use) and 1.2 alike; anything else is double-quoted, JSON-style
// escapes being valid YAML escapes.

/** Comment text is written after `#` as given (callers start it with a space). */
export interface EntryComments {
  /** On the entry's own line, after a scalar or an empty `{}` / `[]`. */
  readonly trailing?: string;
  /** Lines above the entry (a block collection has no line of its own for it). */
  readonly before?: string;
}

export type CommentsFor = (keys: readonly (string | number)[]) => EntryComments | undefined;

const INDICATOR_START = /^[-?:,[\]{}#&*!|>'"%@`]/;
const PLAIN_CHARS = /^[A-Za-z0-9_./:%+@~<>=-]+$/;
/** Plain scalars YAML 1.1 or 1.2 resolves to something other than a string. */
const NOT_A_STRING = [
  /^(?:~|null|Null|NULL)$/,
  /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/,
  /^[-+]?(?:0b[01_]+|0o?[0-7_]+|0x[0-9a-fA-F_]+|[0-9][0-9_]*)$/,
  /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/,
  /^[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*$/,
  /^[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+$/,
  /^[-+]?\.(?:inf|Inf|INF)$/,
  /^\.(?:nan|NaN|NAN)$/,
  /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}/,
  /^(?:<<|=)$/,
];

export function isPlainSafe(s: string): boolean {
  return PLAIN_CHARS.test(s) && !INDICATOR_START.test(s) && !s.endsWith(':') && !NOT_A_STRING.some((re) => re.test(s));
}

function quoted(s: string): string {
  // JSON leaves U+0080..U+FFFF as they are; YAML would fold NEL and the line/paragraph separators.
  return JSON.stringify(s).replace(/[\u0085\u2028\u2029\ufeff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function scalar(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return isPlainSafe(v) ? v : quoted(v);
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return '.nan';
    if (!Number.isFinite(v)) return v > 0 ? '.inf' : '-.inf';
    return String(v);
  }
  if (typeof v === 'boolean') return String(v);
  throw new TypeError(`cannot write ${typeof v} as YAML`);
}

type Collection = readonly unknown[] | Readonly<Record<string, unknown>>;

function isCollection(v: unknown): v is Collection {
  return v !== null && typeof v === 'object';
}

function isEmpty(v: Collection): boolean {
  return Array.isArray(v) ? v.length === 0 : Object.keys(v).length === 0;
}

function comment(text: string): string {
  return text.split('\n').map((l) => `#${l}`).join('\n');
}

class Writer {
  readonly lines: string[] = [];
  constructor(private readonly commentsFor: CommentsFor) {}

  map(obj: Readonly<Record<string, unknown>>, indent: number, path: readonly (string | number)[], firstPrefix?: string): void {
    let first = true;
    for (const [k, v] of Object.entries(obj)) {
      if (v === undefined) continue;
      const keys = [...path, k];
      const notes = this.commentsFor(keys);
      const pad = first && firstPrefix !== undefined ? firstPrefix : ' '.repeat(indent);
      if (notes?.before !== undefined) this.lines.push(...comment(notes.before).split('\n').map((l) => ' '.repeat(indent) + l));
      const key = `${pad}${scalar(k)}:`;
      if (isCollection(v) && !isEmpty(v)) {
        this.lines.push(key);
        this.block(v, indent + 2, keys);
      } else {
        const text = isCollection(v) ? (Array.isArray(v) ? '[]' : '{}') : scalar(v);
        this.lines.push(`${key} ${text}${notes?.trailing !== undefined ? ` ${comment(notes.trailing)}` : ''}`);
      }
      first = false;
    }
  }

  private list(items: readonly unknown[], indent: number, path: readonly (string | number)[]): void {
    const pad = ' '.repeat(indent);
    items.forEach((item, i) => {
      if (isCollection(item) && !isEmpty(item)) {
        if (Array.isArray(item)) {
          this.lines.push(`${pad}-`);
          this.list(item, indent + 2, [...path, i]);
        } else this.map(item as Record<string, unknown>, indent + 2, [...path, i], `${pad}- `);
      } else this.lines.push(`${pad}- ${isCollection(item) ? (Array.isArray(item) ? '[]' : '{}') : scalar(item ?? null)}`);
    });
  }

  private block(v: Collection, indent: number, path: readonly (string | number)[]): void {
    if (Array.isArray(v)) this.list(v, indent, path);
    else this.map(v as Record<string, unknown>, indent, path);
  }
}

/** The document as block YAML: `header` as comment lines and a blank line first, then the map. */
export function emitYaml(doc: Readonly<Record<string, unknown>>, commentsFor: CommentsFor, header?: string): string {
  const w = new Writer(commentsFor);
  w.map(doc, 0, []);
  const head = header === undefined ? '' : `${comment(header)}\n\n`;
  return `${head}${w.lines.join('\n')}\n`;
}
