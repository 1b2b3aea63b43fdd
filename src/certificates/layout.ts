// Where the agent keeps its client certificate in --cert-dir, and whether a
// certificate is still usable: the kubelet's certificate file store naming
// (`<prefix>-<timestamp>.pem` holding certificate then key, a
// `<prefix>-current.pem` symlink to the newest, `<prefix>.key.tmp` for the
// bootstrap key) with `kubelet-client` renamed `agent-client`. Pure.
import { X509Certificate } from 'node:crypto';
import { join } from 'node:path';

/** The client pair's file name prefix (upstream `kubelet-client`). */
export const CLIENT_PAIR_PREFIX = 'agent-client';
/** The serving pair's file name prefix (upstream `kubelet-server`). */
export const SERVER_PAIR_PREFIX = 'agent-server';

export interface PairPaths {
  /** The symlink every reader follows: `<prefix>-current.pem`. */
  readonly current: string;
  /** The bootstrap's private key while its request is pending: `<prefix>.key.tmp`. */
  readonly keyTmp: string;
  /** A new pair's file for `at`: `<prefix>-YYYY-MM-DD-HH-MM-SS.pem` (UTC, so names sort by time in any zone). */
  dated(at: Date): string;
}

const pad = (n: number): string => String(n).padStart(2, '0');

export function pairPaths(certDir: string, prefix: string): PairPaths {
  return {
    current: join(certDir, `${prefix}-current.pem`),
    keyTmp: join(certDir, `${prefix}.key.tmp`),
    dated: (at) =>
      join(certDir, `${prefix}-${at.getUTCFullYear()}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())}-${pad(at.getUTCHours())}-${pad(at.getUTCMinutes())}-${pad(at.getUTCSeconds())}.pem`),
  };
}

/** Every PEM block of `label` in `text`, each a complete block ending in a newline. */
export function pemBlocks(text: string, label: string): string[] {
  const re = new RegExp(`-----BEGIN ${label}-----\\r?\\n[\\s\\S]*?-----END ${label}-----`, 'g');
  return [...text.matchAll(re)].map((m) => `${m[0]}\n`);
}

/** The first private key block (any `... PRIVATE KEY` label), or undefined. */
export function privateKeyBlock(text: string): string | undefined {
  const m = /-----BEGIN ([A-Z ]*PRIVATE KEY)-----\r?\n[\s\S]*?-----END \1-----/.exec(text);
  return m === null ? undefined : `${m[0]}\n`;
}

export interface Lifetime {
  readonly notBefore: Date;
  readonly notAfter: Date;
}

/** The validity window of the first certificate in `pem`; throws on a PEM that holds none or cannot be parsed. */
export function certificateLifetime(pem: string): Lifetime {
  const first = pemBlocks(pem, 'CERTIFICATE')[0];
  if (first === undefined) throw new TypeError('no CERTIFICATE block');
  const c = new X509Certificate(first);
  return { notBefore: new Date(c.validFrom), notAfter: new Date(c.validTo) };
}

export type CertificateValidity = { valid: true; notAfter: Date } | { valid: false; reason: string };

/**
 * Whether a client certificate PEM may still be used at `now`: the kubelet's
 * isClientConfigStillValid — no certificate, an unparsable one or any
 * certificate of the chain past its notAfter makes it invalid (notBefore is
 * not checked: a clock slightly behind the signer's must not re-bootstrap).
 */
export function clientCertificateValidity(certPem: string | undefined, now: Date): CertificateValidity {
  if (certPem === undefined) return { valid: false, reason: 'it has no client certificate' };
  const blocks = pemBlocks(certPem, 'CERTIFICATE');
  if (blocks.length === 0) return { valid: false, reason: 'its client certificate holds no CERTIFICATE block' };
  let earliest: Date | undefined;
  for (const b of blocks) {
    let notAfter: Date;
    try {
      notAfter = new Date(new X509Certificate(b).validTo);
    } catch (e) {
      return { valid: false, reason: `its client certificate cannot be parsed: ${(e as Error).message}` };
    }
    if (now.getTime() > notAfter.getTime()) return { valid: false, reason: `part of its client certificate expired at ${notAfter.toISOString()}` };
    if (earliest === undefined || notAfter < earliest) earliest = notAfter;
  }
  return { valid: true, notAfter: earliest! };
}
