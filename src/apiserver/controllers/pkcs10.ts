// PKCS#10 certificate requests (a CSR's spec.request): parsed with
// @peculiar/asn1-csr (the same ASN.1 schema family as certs/x509.ts), the
// self-signature verified with node:crypto, as Go's
// x509.ParseCertificateRequest + CheckSignature do for upstream's signer.
// Pure CPU work, no I/O; throws CsrParseError naming what is wrong.
import { createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { Attributes, CertificationRequest, CertificationRequestInfo } from '@peculiar/asn1-csr';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AlgorithmIdentifier, Attribute, AttributeTypeAndValue, AttributeValue, Extension, Extensions, GeneralName, Name, RelativeDistinguishedName, SubjectAlternativeName,
  SubjectPublicKeyInfo, id_ce_subjectAltName,
} from '@peculiar/asn1-x509';

/** Why a request cannot be used; `field` is the CSR field it came from. */
export class CsrParseError extends Error {
  readonly field = 'spec.request';
  constructor(message: string) {
    super(message);
    this.name = 'CsrParseError';
  }
}

export interface ParsedCsr {
  readonly commonName: string;
  /** Every O value of the subject, in order. */
  readonly organizations: readonly string[];
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
  readonly emailAddresses: readonly string[];
  readonly uris: readonly string[];
  readonly publicKey: KeyObject;
  /** The subject as requested, for the issued certificate. */
  readonly subject: Name;
}

const OID_CN = '2.5.4.3';
const OID_O = '2.5.4.10';
const OID_EXTENSION_REQUEST = '1.2.840.113549.1.9.14';

/** Signature algorithms Go's CheckSignature accepts for a CSR (bar DSA, MD5 and PSS), with their digest. */
const SIGNATURE_DIGESTS: Readonly<Record<string, string | null>> = {
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.3.101.112': null, // Ed25519: no separate digest
};

/** The DER of the first `CERTIFICATE REQUEST` PEM block (what upstream's ParseCSR takes). */
export function csrDer(pem: string): Buffer {
  const m = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/.exec(pem);
  if (m === null || m[1] !== 'CERTIFICATE REQUEST') throw new CsrParseError('PEM block type must be CERTIFICATE REQUEST');
  return Buffer.from(m[2]!.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
}

function subjectValues(name: Name, oid: string): string[] {
  const out: string[] = [];
  for (const rdn of name) for (const atv of rdn) if (atv.type === oid) out.push(atv.value.toString());
  return out;
}

function subjectAltNames(req: CertificationRequest): Pick<ParsedCsr, 'dnsNames' | 'ipAddresses' | 'emailAddresses' | 'uris'> {
  const out = { dnsNames: [] as string[], ipAddresses: [] as string[], emailAddresses: [] as string[], uris: [] as string[] };
  for (const attr of req.certificationRequestInfo.attributes) {
    if (attr.type !== OID_EXTENSION_REQUEST) continue;
    for (const value of attr.values) {
      for (const ext of AsnConvert.parse(value, Extensions)) {
        if (ext.extnID !== id_ce_subjectAltName) continue;
        for (const g of AsnConvert.parse(ext.extnValue.buffer, SubjectAlternativeName)) {
          if (g.dNSName !== undefined) out.dnsNames.push(g.dNSName);
          if (g.iPAddress !== undefined) out.ipAddresses.push(g.iPAddress);
          if (g.rfc822Name !== undefined) out.emailAddresses.push(g.rfc822Name);
          if (g.uniformResourceIdentifier !== undefined) out.uris.push(g.uniformResourceIdentifier);
        }
      }
    }
  }
  return out;
}

/** Parses a PEM CSR and checks its self-signature. Throws CsrParseError. */
export function parseCsr(pem: string): ParsedCsr {
  const der = csrDer(pem);
  let req: CertificationRequest;
  try {
    req = AsnConvert.parse(der, CertificationRequest);
  } catch (e) {
    throw new CsrParseError(`unable to parse the certificate request: ${(e as Error).message}`);
  }
  const info = req.certificationRequestInfo;
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({ key: Buffer.from(AsnConvert.serialize(info.subjectPKInfo)), format: 'der', type: 'spki' });
  } catch (e) {
    throw new CsrParseError(`unsupported public key: ${(e as Error).message}`);
  }
  const alg = req.signatureAlgorithm.algorithm;
  const digest = SIGNATURE_DIGESTS[alg];
  if (digest === undefined) throw new CsrParseError(`unable to verify the certificate request signature: unsupported signature algorithm ${alg}`);
  const signed = req.certificationRequestInfoRaw === undefined ? Buffer.from(AsnConvert.serialize(info)) : Buffer.from(req.certificationRequestInfoRaw);
  let ok: boolean;
  try {
    ok = verify(digest, signed, { key: publicKey, dsaEncoding: 'der' }, Buffer.from(req.signature));
  } catch (e) {
    throw new CsrParseError(`unable to verify the certificate request signature: ${(e as Error).message}`);
  }
  if (!ok) throw new CsrParseError('unable to verify the certificate request signature: the signature does not match the public key');
  let sans: ReturnType<typeof subjectAltNames>;
  try {
    sans = subjectAltNames(req);
  } catch (e) {
    throw new CsrParseError(`unable to parse the requested extensions: ${(e as Error).message}`);
  }
  return { commonName: subjectValues(info.subject, OID_CN)[0] ?? '', organizations: subjectValues(info.subject, OID_O), ...sans, publicKey, subject: info.subject };
}

export interface CsrInput {
  subject: { commonName: string; organizations?: readonly string[] };
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** Subject alternative names to request (tests of the refusal rules). */
  dnsNames?: readonly string[];
}

/** A PEM PKCS#10 request signed with `privateKey` (EC keys sign with SHA-256). For tests and the agent's bootstrap. */
export function createCsrPem(input: CsrInput): string {
  const rdn = (oid: string, v: string): RelativeDistinguishedName => new RelativeDistinguishedName([new AttributeTypeAndValue({ type: oid, value: new AttributeValue({ utf8String: v }) })]);
  const subject = new Name([...(input.subject.organizations ?? []).map((o) => rdn(OID_O, o)), rdn(OID_CN, input.subject.commonName)]);
  const attributes = new Attributes();
  const dns = input.dnsNames ?? [];
  if (dns.length > 0) {
    const san = new Extension({ extnID: id_ce_subjectAltName, critical: false, extnValue: new OctetString(AsnConvert.serialize(new SubjectAlternativeName(dns.map((d) => new GeneralName({ dNSName: d }))))) });
    attributes.push(new Attribute({ type: OID_EXTENSION_REQUEST, values: [AsnConvert.serialize(new Extensions([san]))] }));
  }
  const info = new CertificationRequestInfo({
    version: 0,
    subject,
    subjectPKInfo: AsnConvert.parse(input.publicKey.export({ format: 'der', type: 'spki' }), SubjectPublicKeyInfo),
    attributes,
  });
  const rsa = input.privateKey.asymmetricKeyType === 'rsa';
  const signature = sign('sha256', Buffer.from(AsnConvert.serialize(info)), { key: input.privateKey, dsaEncoding: 'der' });
  const req = new CertificationRequest({
    certificationRequestInfo: info,
    signatureAlgorithm: new AlgorithmIdentifier(rsa ? { algorithm: '1.2.840.113549.1.1.11', parameters: null } : { algorithm: '1.2.840.10045.4.3.2' }),
    signature: signature.buffer.slice(signature.byteOffset, signature.byteOffset + signature.byteLength),
  });
  const b64 = Buffer.from(AsnConvert.serialize(req)).toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN CERTIFICATE REQUEST-----\n${b64}\n-----END CERTIFICATE REQUEST-----\n`;
}
