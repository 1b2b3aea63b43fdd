// The node's certificate signing request: a PKCS#10 request for the
// `system:node:<name>` subject and the CSR object's name, a digest of key,
// subject and usages, as the kubelet's bootstrap names it (so a restart with
// the same key finds its earlier request instead of creating another one).
// Pure CPU work, no I/O. The server's parser lives in
// src/apiserver/controllers/pkcs10.ts, which the agent may not import; this
// is the writing half only.
import { createHash, sign, type KeyObject } from 'node:crypto';
import { Attributes, CertificationRequest, CertificationRequestInfo } from '@peculiar/asn1-csr';
import { AsnConvert } from '@peculiar/asn1-schema';
import { AlgorithmIdentifier, Attribute, AttributeTypeAndValue, AttributeValue, Extension, Extensions, GeneralName, id_ce_subjectAltName, Name, RelativeDistinguishedName, SubjectAlternativeName, SubjectPublicKeyInfo } from '@peculiar/asn1-x509';
import { OctetString } from '@peculiar/asn1-schema';
import { NODE_CLIENT_SIGNER, NODE_CLIENT_USAGES_NO_RSA, NODE_CSR_PREFIX, nodeClientSubject } from '../api/signers.js';
import type { ApiObject } from '../client/types.js';
import { ECDSA_WITH_SHA256, OID_CN, OID_O, RSA_WITH_SHA256, toPem } from '../pki/x509.js';

export interface CsrSubject {
  readonly commonName: string;
  readonly organizations: readonly string[];
}

/** Subject alternative names a request asks for (a serving certificate's; none for a client's). */
export interface CsrSans {
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
}

/** PKCS#9 extensionRequest: where a PKCS#10 request carries the extensions it asks for. */
const OID_EXTENSION_REQUEST = '1.2.840.113549.1.9.14';

function sanAttributes(sans: CsrSans | undefined): Attributes {
  const out = new Attributes();
  if (sans === undefined || sans.dnsNames.length + sans.ipAddresses.length === 0) return out;
  const names = [...sans.dnsNames.map((d) => new GeneralName({ dNSName: d })), ...sans.ipAddresses.map((ip) => new GeneralName({ iPAddress: ip }))];
  const san = new Extension({ extnID: id_ce_subjectAltName, critical: false, extnValue: new OctetString(AsnConvert.serialize(new SubjectAlternativeName(names))) });
  out.push(new Attribute({ type: OID_EXTENSION_REQUEST, values: [AsnConvert.serialize(new Extensions([san]))] }));
  return out;
}

/** A PEM `CERTIFICATE REQUEST` for `subject` (and `sans`, when given), self-signed with `privateKey` (SHA-256; EC or RSA). */
export function createCsrPem(subject: CsrSubject, privateKey: KeyObject, publicKey: KeyObject, sans?: CsrSans): string {
  const rdn = (oid: string, v: string): RelativeDistinguishedName => new RelativeDistinguishedName([new AttributeTypeAndValue({ type: oid, value: new AttributeValue({ utf8String: v }) })]);
  const info = new CertificationRequestInfo({
    version: 0,
    subject: new Name([...subject.organizations.map((o) => rdn(OID_O, o)), rdn(OID_CN, subject.commonName)]),
    subjectPKInfo: AsnConvert.parse(publicKey.export({ format: 'der', type: 'spki' }), SubjectPublicKeyInfo),
    attributes: sanAttributes(sans),
  });
  const rsa = privateKey.asymmetricKeyType === 'rsa';
  const sig = sign('sha256', Buffer.from(AsnConvert.serialize(info)), { key: privateKey, dsaEncoding: 'der' });
  const req = new CertificationRequest({
    certificationRequestInfo: info,
    signatureAlgorithm: new AlgorithmIdentifier(rsa ? { algorithm: RSA_WITH_SHA256, parameters: null } : { algorithm: ECDSA_WITH_SHA256 }),
    signature: sig.buffer.slice(sig.byteOffset, sig.byteOffset + sig.byteLength),
  });
  return toPem('CERTIFICATE REQUEST', Buffer.from(AsnConvert.serialize(req)));
}

/**
 * The usages a node asks for with this key, in the kubelet's order: digital
 * signature and client auth, plus key encipherment for an RSA key.
 */
export function nodeClientUsages(publicKey: KeyObject): readonly string[] {
  return publicKey.asymmetricKeyType === 'rsa' ? [...NODE_CLIENT_USAGES_NO_RSA, 'key encipherment'] : NODE_CLIENT_USAGES_NO_RSA;
}

const b64url = (b: Buffer | string): string => Buffer.from(b).toString('base64url');

/**
 * `node-csr-<digest>`: SHA-512/256 over the base64url (unpadded) of the
 * public key's SPKI DER, the CN, each O and each usage, each followed by
 * '|' — the kubelet's digestedName, so the same key asks under the same name.
 */
export function digestedCsrName(publicKey: KeyObject, subject: CsrSubject, usages: readonly string[], prefix: string = NODE_CSR_PREFIX): string {
  const h = createHash('sha512-256');
  const write = (data: Buffer | string): void => {
    h.update(b64url(data));
    h.update('|');
  };
  write(publicKey.export({ format: 'der', type: 'spki' }));
  write(subject.commonName);
  for (const o of subject.organizations) write(o);
  for (const u of usages) write(u);
  return `${prefix}${b64url(h.digest())}`;
}

export interface NodeCsr {
  readonly name: string;
  readonly requestPem: string;
  readonly object: ApiObject;
}

/** The CertificateSigningRequest object a node posts for its client certificate. Pure. */
export function nodeClientCsr(nodeName: string, key: { privateKey: KeyObject; publicKey: KeyObject }): NodeCsr {
  const subject = nodeClientSubject(nodeName);
  const usages = nodeClientUsages(key.publicKey);
  const requestPem = createCsrPem(subject, key.privateKey, key.publicKey);
  const name = digestedCsrName(key.publicKey, subject, usages);
  const object: ApiObject = {
    apiVersion: 'certificates.platform.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: Buffer.from(requestPem).toString('base64'), signerName: NODE_CLIENT_SIGNER, usages: [...usages] },
  };
  return { name, requestPem, object };
}
