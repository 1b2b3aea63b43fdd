// X.509 fixtures for the ClusterTrustBundle rules (spec §2.3), made with the
// openssl command line (present on every Debian machine) into a temp dir.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A self-signed certificate, PEM; `ca` sets basicConstraints CA:TRUE (else CA:FALSE). */
export function selfSigned(cn: string, ca: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'ctb-cert-'));
  try {
    const ext = join(dir, 'ext.cnf');
    writeFileSync(ext, `[req]\ndistinguished_name=dn\n[dn]\n[v3]\nbasicConstraints=critical,CA:${ca ? 'TRUE' : 'FALSE'}\nkeyUsage=critical,digitalSignature,keyCertSign\n`);
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem'), '-days', '2', '-subj', `/CN=${cn}`, '-config', ext, '-extensions', 'v3'], { stdio: 'ignore' });
    return readFileSync(join(dir, 'c.pem'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
