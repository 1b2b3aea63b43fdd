// Issuing X.509 certificates: the server's self-signed CA and serving
// certificate (src/apiserver/certs/serving.ts; the agent's own in src/server), and the client certificates tests and the CSR
// signer makes. Keys are node:crypto's (ECDSA P-256); the certificate
// structures are @peculiar/asn1-x509's (a well-kept ASN.1 schema of RFC 5280,
// the layer under @peculiar/x509, used directly because that package needs a
// global reflect-metadata polyfill), signed with node:crypto.
// Synchronous CPU work of well under a millisecond per certificate; no I/O.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AlgorithmIdentifier, AttributeTypeAndValue, AttributeValue, AuthorityKeyIdentifier, BasicConstraints, Certificate, ExtendedKeyUsage, Extension, Extensions,
  GeneralName, KeyIdentifier, KeyUsage, KeyUsageFlags, Name, RelativeDistinguishedName, SubjectAlternativeName, SubjectKeyIdentifier,
  SubjectPublicKeyInfo, TBSCertificate, Validity, Version, id_ce_authorityKeyIdentifier, id_ce_basicConstraints, id_ce_extKeyUsage, id_ce_keyUsage,
  id_ce_subjectAltName, id_ce_subjectKeyIdentifier, id_kp_clientAuth, id_kp_serverAuth,
} from '@peculiar/asn1-x509';

/** Signature algorithms and name attributes, shared with src/certificates' CSR writer. */
export const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
export const RSA_WITH_SHA256 = '1.2.840.113549.1.1.11';
export const OID_CN = '2.5.4.3';
export const OID_O = '2.5.4.10';

export interface KeyPair {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

/** A fresh ECDSA P-256 key pair. */
export function generateKeyPair(): KeyPair {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
}

export interface Subject {
  commonName: string;
  organizations?: readonly string[];
}

export interface IssueRequest {
  subject: Subject;
  publicKey: KeyObject;
  /** The signer; absent for a self-signed certificate (signed with `selfKey`). */
  issuer?: { subject: Subject; privateKey: KeyObject; publicKey: KeyObject };
  /** Private key of a self-signed certificate. */
  selfKey?: KeyObject;
  notBefore: Date;
  notAfter: Date;
  isCA: boolean;
  /** DNS names and IP addresses for the subjectAltName extension. */
  hosts?: readonly string[];
  usage?: 'server' | 'client' | 'server+client';
  /** Exact key usage bits and extended key usage OIDs (the CSR signer's, from spec.usages); replace what `usage` implies. */
  usages?: { keyUsage: number; extended: readonly string[] };
  /** The subject and issuer names as encoded elsewhere (a CSR's subject, an operator CA's DN); replace `subject`/`issuer.subject`. */
  subjectName?: Name;
  issuerName?: Name;
}

function name(s: Subject): Name {
  const rdn = (oid: string, v: string): RelativeDistinguishedName =>
    new RelativeDistinguishedName([new AttributeTypeAndValue({ type: oid, value: new AttributeValue({ utf8String: v }) })]);
  return new Name([...(s.organizations ?? []).map((o) => rdn(OID_O, o)), rdn(OID_CN, s.commonName)]);
}

function keyId(pub: KeyObject): ArrayBuffer {
  const spki = AsnConvert.parse(pub.export({ format: 'der', type: 'spki' }), SubjectPublicKeyInfo);
  const id = createHash('sha1').update(Buffer.from(spki.subjectPublicKey)).digest();
  return id.buffer.slice(id.byteOffset, id.byteOffset + id.byteLength);
}

const ext = (id: string, critical: boolean, value: unknown): Extension => new Extension({ extnID: id, critical, extnValue: new OctetString(AsnConvert.serialize(value)) });

function extensionsFor(req: IssueRequest): Extensions {
  const list: Extension[] = [];
  const usage = req.isCA ? KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign | KeyUsageFlags.digitalSignature : (req.usages?.keyUsage ?? KeyUsageFlags.digitalSignature | KeyUsageFlags.keyEncipherment);
  // As Go's x509: no keyUsage extension when no bit is set, no extKeyUsage when none is asked.
  if (usage !== 0) list.push(ext(id_ce_keyUsage, true, new KeyUsage(usage)));
  if (req.usages !== undefined) {
    if (req.usages.extended.length > 0) list.push(ext(id_ce_extKeyUsage, false, new ExtendedKeyUsage([...req.usages.extended])));
  } else if (!req.isCA) {
    const u = req.usage ?? 'server';
    const purposes = [...(u.includes('server') ? [id_kp_serverAuth] : []), ...(u.includes('client') ? [id_kp_clientAuth] : [])];
    list.push(ext(id_ce_extKeyUsage, false, new ExtendedKeyUsage(purposes)));
  }
  list.push(ext(id_ce_basicConstraints, true, new BasicConstraints(req.isCA ? { cA: true } : { cA: false })));
  list.push(ext(id_ce_subjectKeyIdentifier, false, new SubjectKeyIdentifier(keyId(req.publicKey))));
  const signer = req.issuer?.publicKey ?? req.publicKey;
  list.push(ext(id_ce_authorityKeyIdentifier, false, new AuthorityKeyIdentifier({ keyIdentifier: new KeyIdentifier(keyId(signer)) })));
  const hosts = req.hosts ?? [];
  if (hosts.length > 0) {
    const names = hosts.map((h) => (isIP(h) === 0 ? new GeneralName({ dNSName: h }) : new GeneralName({ iPAddress: h })));
    list.push(ext(id_ce_subjectAltName, false, new SubjectAlternativeName(names)));
  }
  return new Extensions(list);
}

/** SHA-256 with the signing key's algorithm: ECDSA (the generated CAs) or RSA (an operator's --cluster-signing-key-file). */
function signatureAlgorithm(key: KeyObject): AlgorithmIdentifier {
  if (key.asymmetricKeyType === 'ec') return new AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA256 });
  if (key.asymmetricKeyType === 'rsa') return new AlgorithmIdentifier({ algorithm: RSA_WITH_SHA256, parameters: null });
  throw new TypeError(`issueCertificate: unsupported signing key type ${String(key.asymmetricKeyType)} (ECDSA or RSA)`);
}

/** Issues one certificate and returns it as PEM. */
export function issueCertificate(req: IssueRequest): string {
  const signingKey = req.issuer?.privateKey ?? req.selfKey;
  if (signingKey === undefined) throw new TypeError('issueCertificate: either issuer or selfKey is required');
  const serial = randomBytes(16);
  // A positive INTEGER in minimal DER: a leading 0x00 (then needing a high bit next) would be rejected by strict parsers.
  serial[0] = (serial[0]! & 0x3f) | 0x40;
  const alg = signatureAlgorithm(signingKey);
  const tbs = new TBSCertificate({
    version: Version.v3,
    serialNumber: serial.buffer.slice(serial.byteOffset, serial.byteOffset + serial.byteLength),
    signature: alg,
    issuer: req.issuerName ?? name(req.issuer?.subject ?? req.subject),
    validity: new Validity({ notBefore: req.notBefore, notAfter: req.notAfter }),
    subject: req.subjectName ?? name(req.subject),
    subjectPublicKeyInfo: AsnConvert.parse(req.publicKey.export({ format: 'der', type: 'spki' }), SubjectPublicKeyInfo),
    extensions: extensionsFor(req),
  });
  const tbsDer = Buffer.from(AsnConvert.serialize(tbs));
  const signature = sign('sha256', tbsDer, { key: signingKey, dsaEncoding: 'der' });
  const cert = new Certificate({ tbsCertificate: tbs, signatureAlgorithm: alg, signatureValue: signature.buffer.slice(signature.byteOffset, signature.byteOffset + signature.byteLength) });
  return toPem('CERTIFICATE', Buffer.from(AsnConvert.serialize(cert)));
}

export function toPem(label: string, der: Buffer): string {
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

/** PKCS#8 PEM of a private key (what --tls-private-key-file and the cert dir hold). */
export const privateKeyPem = (k: KeyObject): string => k.export({ format: 'pem', type: 'pkcs8' }).toString();

/** Reads a PEM private key back, with the public half. Throws on bad input. */
export function keyPairFromPem(pem: string): KeyPair {
  const privateKey = createPrivateKey(pem);
  return { privateKey, publicKey: createPublicKey(privateKey) };
}
