// Writes a volume's files the way the kubelet's AtomicWriter does, so that a
// reader inside the container sees either the old set of files or the new
// one, never a mix: the files go into a fresh timestamped directory
// (`..2026_11_24_04_10_15.123456`), a `..data` symlink is swapped to it by
// rename(2), and each user-visible top-level path is a symlink through
// `..data`. Nothing is rewritten when content and modes are unchanged (each
// sync calls it again). The decisions (`checkPayloadPath`, `planWrite`) are
// pure; `writeAtomically` does the I/O. One writer per directory at a time
// (the manager calls it from the pod's own sync).
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, readlink, rename, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export const DATA_DIR = '..data';
const DATA_DIR_TMP = '..data_tmp';
const TS_DIR_MODE = 0o755;

export interface FileProjection {
  /** Text (written as UTF-8) or bytes (Secret and binary ConfigMap keys). */
  content: string | Uint8Array;
  /** Permission bits of the file. */
  mode: number;
}

export type Payload = ReadonlyMap<string, FileProjection>;

/** Why a payload path is refused (validatePath), or undefined. Pure. */
export function checkPayloadPath(path: string): string | undefined {
  if (path === '') return 'invalid path: must not be empty';
  if (path.startsWith('/')) return `invalid path: must be relative path: ${path}`;
  if (path.split('/').includes('..')) return `invalid path: must not contain '..': ${path}`;
  if (path.startsWith('..')) return `invalid path: must not start with '..': ${path}`;
  return undefined;
}

/** The top-level names of a payload's paths: the user-visible symlinks. */
export const topLevel = (paths: Iterable<string>): Set<string> => new Set([...paths].map((p) => p.split('/')[0]!));

const sameContent = (a: string | Uint8Array, b: string | Uint8Array): boolean => (typeof a === 'string' && typeof b === 'string' ? a === b : Buffer.from(a).equals(Buffer.from(b)));

/**
 * Whether the payload must be written, and which user-visible top-level paths
 * go (those of the current payload that the new one lacks). `current`
 * undefined: nothing written yet. Pure.
 */
export function planWrite(payload: Payload, current: Payload | undefined): { write: boolean; remove: string[] } {
  const keep = topLevel(payload.keys());
  const remove = current === undefined ? [] : [...topLevel(current.keys())].filter((p) => !keep.has(p)).sort();
  if (current === undefined || current.size !== payload.size) return { write: true, remove };
  for (const [path, want] of payload) {
    const have = current.get(path);
    if (!have || !sameContent(have.content, want.content) || have.mode !== want.mode) return { write: true, remove };
  }
  return { write: false, remove };
}

/** `..2006_01_02_15_04_05.` of the time (UTC), the prefix of a new timestamped directory. Pure. */
export function timestampPrefix(now: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `..${now.getUTCFullYear()}_${p(now.getUTCMonth() + 1)}_${p(now.getUTCDate())}_${p(now.getUTCHours())}_${p(now.getUTCMinutes())}_${p(now.getUTCSeconds())}.`;
}

/** The files below `dir` (relative paths), with content and permission bits. */
async function readPayload(dir: string, base = ''): Promise<Map<string, FileProjection>> {
  const out = new Map<string, FileProjection>();
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const rel = base === '' ? e.name : `${base}/${e.name}`;
    if (e.isDirectory()) for (const [k, v] of await readPayload(`${dir}/${e.name}`, rel)) out.set(k, v);
    else if (e.isFile()) out.set(rel, { content: new Uint8Array(await readFile(`${dir}/${e.name}`)), mode: (await stat(`${dir}/${e.name}`)).mode & 0o7777 });
  }
  return out;
}

const lexists = (p: string): Promise<boolean> => lstat(p).then(() => true, () => false);

/**
 * Makes `target` hold `payload`; returns whether anything was written. Throws
 * on a refused path (before writing anything) or an I/O error (the old files
 * stay visible: `..data` moves only once the new directory is complete).
 */
export async function writeAtomically(target: string, payload: Payload, now = new Date()): Promise<boolean> {
  for (const path of payload.keys()) {
    const bad = checkPayloadPath(path);
    if (bad !== undefined) throw new Error(bad);
  }
  await mkdir(target, { recursive: true });
  const oldTs = await readlink(`${target}/${DATA_DIR}`).catch(() => undefined);
  const current = oldTs === undefined ? undefined : await readPayload(`${target}/${oldTs}`).catch(() => undefined);
  const plan = planWrite(payload, current);
  if (!plan.write) return false;

  const tsDir = await mkdtemp(`${target}/${timestampPrefix(now)}`);
  await chmod(tsDir, TS_DIR_MODE);
  for (const [path, f] of payload) {
    const file = `${tsDir}/${path}`;
    await mkdir(dirname(file), { recursive: true, mode: TS_DIR_MODE });
    await writeFile(file, f.content, { mode: f.mode });
    // writeFile's mode is cut by the umask.
    await chmod(file, f.mode);
  }
  for (const name of topLevel(payload.keys())) {
    const link = `${target}/${name}`;
    if (!(await lexists(link))) await symlink(`${DATA_DIR}/${name}`, link);
  }
  const tmp = `${target}/${DATA_DIR_TMP}`;
  await rm(tmp, { force: true });
  await symlink(tsDir.slice(target.length + 1), tmp);
  await rename(tmp, `${target}/${DATA_DIR}`);
  for (const name of plan.remove) await unlink(`${target}/${name}`).catch(() => undefined);
  if (oldTs !== undefined && oldTs.startsWith('..') && !oldTs.includes('/')) await rm(`${target}/${oldTs}`, { recursive: true, force: true });
  return true;
}
