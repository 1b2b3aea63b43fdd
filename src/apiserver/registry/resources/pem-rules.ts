// PEM decoding as Go's encoding/pem sees it (blocks with a type, optional
// `Key: value` headers, base64 bodies; text between blocks ignored; a
// malformed block skipped) and the certificate checks ClusterTrustBundles
// and CSR status share. X.509 parsing is node:crypto's. Pure.
import { X509Certificate } from 'node:crypto';

export interface PemBlock {
  type: string;
  headers: Record<string, string>;
  bytes: Buffer;
}

const BEGIN = /-----BEGIN ([^\r\n-]*)-----\r?\n/g;
const B64 = /^[A-Za-z0-9+/=\s]*$/;

/** Every well-formed block, in order. */
export function decodePem(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  BEGIN.lastIndex = 0;
  for (;;) {
    const m = BEGIN.exec(text);
    if (m === null) return out;
    const type = m[1] ?? '';
    const endMarker = `-----END ${type}-----`;
    const end = text.indexOf(endMarker, BEGIN.lastIndex);
    if (end < 0) continue;
    const lines = text.slice(BEGIN.lastIndex, end).split(/\r?\n/);
    const headers: Record<string, string> = {};
    let i = 0;
    for (; i < lines.length; i++) {
      const line = lines[i] ?? '';
      const colon = line.indexOf(':');
      if (colon <= 0) break;
      headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
    }
    if (Object.keys(headers).length > 0 && (lines[i] ?? '').trim() === '') i++;
    const body = lines.slice(i).join('');
    if (!B64.test(body)) continue;
    out.push({ type, headers, bytes: Buffer.from(body, 'base64') });
    BEGIN.lastIndex = end + endMarker.length;
  }
}

/** The parsed certificate, or undefined when the DER is not an X.509 certificate. */
export function parseCertificate(der: Buffer): X509Certificate | undefined {
  try {
    return new X509Certificate(der);
  } catch {
    return undefined;
  }
}
