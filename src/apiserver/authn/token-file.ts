// --token-auth-file: kube-apiserver's static token CSV, one user per line:
// token,user,uid[,"group1,group2"]. Read once at start; a bad line stops the
// start with an error naming the file and the line. parseTokenFile is pure.
import { readFile } from 'node:fs/promises';
import { AgentError } from '../../errors.js';
import type { UserInfo } from '../types.js';

export interface TokenFileResult {
  readonly tokens: ReadonlyMap<string, UserInfo>;
  /** A token given on two lines (the later line wins, as upstream). */
  readonly warnings: readonly string[];
}

/** Splits one CSV record as Go's encoding/csv does: commas, double-quoted fields with "" for a quote. */
export function splitCsvLine(line: string): string[] | { error: string } {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let value = '';
      i++;
      for (;;) {
        if (i >= line.length) return { error: 'extraneous or missing " in quoted-field' };
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            value += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += line[i++];
      }
      if (i < line.length && line[i] !== ',') return { error: 'extraneous or missing " in quoted-field' };
      fields.push(value);
    } else {
      const end = line.indexOf(',', i);
      const value = end < 0 ? line.slice(i) : line.slice(i, end);
      if (value.includes('"')) return { error: 'bare " in non-quoted-field' };
      fields.push(value);
      i = end < 0 ? line.length : end;
    }
    if (i >= line.length) return fields;
    i++; // the comma
    if (i === line.length) {
      fields.push('');
      return fields;
    }
  }
}

export function parseTokenFile(text: string, path: string): TokenFileResult {
  const tokens = new Map<string, UserInfo>();
  const warnings: string[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, idx) => {
    const lineNo = idx + 1;
    if (raw.trim() === '') return;
    const at = (msg: string): AgentError => new AgentError('ESTARTUP', `--token-auth-file ${path}, line ${lineNo}: ${msg}`, { flag: '--token-auth-file', file: path, line: lineNo });
    const rec = splitCsvLine(raw);
    if (!Array.isArray(rec)) throw at(rec.error);
    if (rec.length < 3) throw at(`must have at least 3 columns (token, user name, user uid), found ${rec.length}`);
    const [token = '', name = '', uid = ''] = rec;
    if (token === '') throw at('the token is empty');
    if (name === '') throw at('the user name is empty');
    const groups = (rec[3] ?? '').split(',').map((g) => g.trim()).filter((g) => g !== '');
    if (tokens.has(token)) warnings.push(`duplicate token has been found in token file '${path}', record number '${lineNo}'`);
    tokens.set(token, { name, uid, groups, extra: {} });
  });
  return { tokens, warnings };
}

export async function loadTokenFile(path: string): Promise<TokenFileResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new AgentError('ESTARTUP', `--token-auth-file ${path}: ${(e as Error).message}`, { flag: '--token-auth-file', file: path, cause: e });
  }
  return parseTokenFile(text, path);
}
