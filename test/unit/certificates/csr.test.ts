import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { digestedCsrName, nodeClientCsr, nodeClientUsages } from '../../../src/certificates/csr.js';
import { NODE_CLIENT_SIGNER } from '../../../src/api/signers.js';
import { nodeClientProblem } from '../../../src/apiserver/controllers/csr-rules.js';
import { parseCsr } from '../../../src/apiserver/controllers/pkcs10.js';
import { generateKeyPair } from '../../../src/pki/x509.js';
import { generateKeyPairSync } from 'node:crypto';

describe('the node client CSR', () => {
  it('is a request the server parses, for system:node:<name> in system:nodes, that its node-client rules accept', () => {
    const key = generateKeyPair();
    const csr = nodeClientCsr('worker-1', key);
    const spec = csr.object.spec as { request: string; signerName: string; usages: string[] };
    expect(spec.signerName).toBe(NODE_CLIENT_SIGNER);
    expect(spec.usages).toEqual(['digital signature', 'client auth']);
    const parsed = parseCsr(Buffer.from(spec.request, 'base64').toString('latin1'));
    expect(parsed.commonName).toBe('system:node:worker-1');
    expect(parsed.organizations).toEqual(['system:nodes']);
    expect(parsed.publicKey.equals(key.publicKey)).toBe(true);
    expect(nodeClientProblem(parsed, spec.usages)).toBeUndefined();
    expect(csr.object.metadata).toEqual({ name: csr.name });
  });

  it('asks for key encipherment with an RSA key, and the RSA request parses too', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expect(nodeClientUsages(rsa.publicKey)).toEqual(['digital signature', 'client auth', 'key encipherment']);
    const csr = nodeClientCsr('n', rsa);
    expect(parseCsr(Buffer.from((csr.object.spec as { request: string }).request, 'base64').toString('latin1')).commonName).toBe('system:node:n');
  });

  it('is named node-csr-<SHA-512/256 of key, CN, O and usages>: the same key gives the same name, another key or node another', () => {
    const key = generateKeyPair();
    const subject = { commonName: 'system:node:a', organizations: ['system:nodes'] };
    const usages = ['digital signature', 'client auth'];
    const name = digestedCsrName(key.publicKey, subject, usages);
    const h = createHash('sha512-256');
    for (const part of [key.publicKey.export({ format: 'der', type: 'spki' }), 'system:node:a', 'system:nodes', ...usages]) h.update(`${Buffer.from(part).toString('base64url')}|`);
    expect(name).toBe(`node-csr-${h.digest('base64url')}`);
    expect(nodeClientCsr('a', key).name).toBe(name);
    expect(nodeClientCsr('a', key).name).toBe(name);
    expect(nodeClientCsr('b', key).name).not.toBe(name);
    expect(nodeClientCsr('a', generateKeyPair()).name).not.toBe(name);
    expect(name).toMatch(/^node-csr-[A-Za-z0-9_-]{43}$/);
  });
});
