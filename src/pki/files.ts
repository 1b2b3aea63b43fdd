// Writing key material and checking what a certificate covers: shared by the
// API server's serving material (src/apiserver/certs) and the agent's
// (src/server/tls).
import type { X509Certificate } from 'node:crypto';
import { writeFile, rename } from 'node:fs/promises';
import { isIP } from 'node:net';

/** Writes `text` to `path` with `mode` through a temporary file and a rename, so a reader never sees half a file. */
export async function writeAtomic(path: string, text: string, mode: number): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, text, { mode });
  await rename(tmp, path);
}

/** The names and addresses of `hosts` the certificate's subjectAltName does not cover. Pure. */
export function uncoveredHosts(cert: X509Certificate, hosts: readonly string[]): string[] {
  return hosts.filter((h) => (isIP(h) !== 0 ? cert.checkIP(h) : cert.checkHost(h, { subject: 'never' })) === undefined);
}
