// Certificates for the certificate tests, made by openssl at test time in a
// temporary directory (CA and non-CA), and a CSR. Synchronous, no handles left.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestPems {
  ca1: string;
  ca2: string;
  leaf: string;
  csr: string;
}

export function makeTestPems(): TestPems {
  const dir = mkdtempSync(join(tmpdir(), 'ctb-'));
  try {
    const ossl = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
    const cert = (name: string, ext: string): string => {
      writeFileSync(join(dir, `${name}.cnf`), `[req]\ndistinguished_name=dn\n[dn]\n[ext]\n${ext}\n`);
      ossl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '2', '-subj', `/CN=${name}`, '-config', `${name}.cnf`, '-extensions', 'ext');
      return readFileSync(join(dir, `${name}.pem`), 'utf8');
    };
    const ca1 = cert('ca1', 'basicConstraints=critical,CA:TRUE');
    const ca2 = cert('ca2', 'basicConstraints=critical,CA:TRUE');
    const leaf = cert('leaf', 'basicConstraints=critical,CA:FALSE');
    ossl('req', '-new', '-key', 'leaf.key', '-out', 'node.csr', '-subj', '/O=system:nodes/CN=system:node:n1', '-config', 'leaf.cnf');
    return { ca1, ca2, leaf, csr: readFileSync(join(dir, 'node.csr'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
