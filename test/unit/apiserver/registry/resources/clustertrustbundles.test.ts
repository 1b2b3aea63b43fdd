import { describe, expect, it } from 'vitest';
import { apiErrors } from '../../../../../src/api/errors.js';
import { clusterTrustBundleNameErrors, validateSignerName, validateTrustBundle } from '../../../../../src/apiserver/registry/resources/clustertrustbundle-rules.js';
import { clustertrustbundles } from '../../../../../src/apiserver/registry/resources/clustertrustbundles.js';
import { decodePem } from '../../../../../src/apiserver/registry/resources/pem-rules.js';
import type { ApiObject } from '../../../../../src/apiserver/registry/types.js';
import { makeTestPems } from './certs.js';
import type { TestPems } from './certs.js';

const pems: TestPems = makeTestPems();
const details = (bundle: string): string[] => validateTrustBundle(bundle).map((e) => `${e.field}|${String(e.value)}|${e.detail ?? ''}`);
const withHeader = (pem: string): string => pem.replace('-----BEGIN CERTIFICATE-----\n', '-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n\n');
const garbage = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';

describe('validateTrustBundle', () => {
  it.each<[string, () => string, string[]]>([
    ['one CA', () => pems.ca1, []],
    ['two CAs with text between', () => `${pems.ca1}some text\n${pems.ca2}`, []],
    ['empty', () => '', ['spec.trustBundle|<value omitted>|at least one trust anchor must be provided']],
    ['text only', () => 'hello', ['spec.trustBundle|<value omitted>|at least one trust anchor must be provided']],
    ['bad block type', () => `${pems.ca1}-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n`, ['spec.trustBundle|<value omitted>|entry 1 has bad block type: PUBLIC KEY']],
    ['headers', () => withHeader(pems.ca1), ['spec.trustBundle|<value omitted>|entry 0 has PEM block headers']],
    ['not X.509', () => garbage, ['spec.trustBundle|<value omitted>|entry 0 does not parse as X.509']],
    ['not a CA', () => `${pems.ca1}${pems.leaf}`, ['spec.trustBundle|<value omitted>|entry 1 does not have the CA bit set']],
    ['duplicates', () => `${pems.ca1}${pems.ca2}${pems.ca1}`, ['spec.trustBundle|<value omitted>|duplicate trust anchor (indices [0 2])']],
    ['too large', () => `${pems.ca1}${' '.repeat(1024 * 1024)}`, [`spec.trustBundle|<value omitted, len ${pems.ca1.length + 1024 * 1024}>|may not be longer than 1048576`]],
  ])('%s', (_n, bundle, want) => expect(details(bundle())).toEqual(want));

  it('decodes PEM like Go: headers, text between blocks', () => {
    expect(decodePem(`x\n${withHeader(pems.ca1)}y\n`).map((b) => [b.type, b.headers])).toEqual([['CERTIFICATE', { 'Proc-Type': '4,ENCRYPTED' }]]);
  });
});

describe('signer names and bundle names', () => {
  it.each<[string, string[]]>([
    ['example.com/signer', []],
    ['example.com', ["must be a fully qualified domain and path of the form 'example.com/signer-name'"]],
    ['a/b/c', ["must be a fully qualified domain and path of the form 'example.com/signer-name'"]],
    ['example/signer', ['should be a domain with at least two segments separated by dots']],
    ['Example.com/signer', ["validating label \"Example\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]],
    ['example.com/', ['path segment must be non-empty']],
  ])('signer %s', (signer, want) => expect(validateSignerName(signer).map((e) => e.detail)).toEqual(want));

  it.each<[string, string, string[]]>([
    ['plain', '', []],
    ['a:b', '', ['ClusterTrustBundle without signer name must not have ":" in its name']],
    ['example.com:signer:one', 'example.com/signer', []],
    ['one', 'example.com/signer', ['ClusterTrustBundle for signerName example.com/signer must be named with prefix example.com:signer:']],
    ['example.com:signer:', 'example.com/signer', [expect.stringContaining('a lowercase RFC 1123 subdomain') as unknown as string]],
  ])('name %s with signer %j', (name, signer, want) => expect(clusterTrustBundleNameErrors(name, signer)).toEqual(want));
});

describe('clustertrustbundles strategy', () => {
  const obj = (name: string, spec: Record<string, unknown>): ApiObject => ({ apiVersion: 'certificates.platform.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name }, spec });
  it('serves cluster-scoped behind its gate with the signerName field', () => {
    expect(clustertrustbundles.info).toMatchObject({ group: 'certificates.platform.io', version: 'v1alpha1', namespaced: false, featureGate: 'ClusterTrustBundle' });
    expect(clustertrustbundles.fields?.(obj('x', { signerName: 'example.com/s' }))).toEqual({ 'spec.signerName': 'example.com/s' });
  });
  it('accepts a good bundle and names each bad field', () => {
    expect(clustertrustbundles.validate(obj('example.com:s:1', { signerName: 'example.com/s', trustBundle: pems.ca1 }))).toEqual([]);
    const errs = clustertrustbundles.validate(obj('bundle', { signerName: 'example.com/s', trustBundle: pems.leaf }));
    const e = apiErrors.invalid({ group: 'certificates.platform.io', kind: 'ClusterTrustBundle' }, 'bundle', errs);
    expect(e.message).toBe(
      'ClusterTrustBundle.certificates.platform.io "bundle" is invalid: [metadata.name: Invalid value: "bundle": ClusterTrustBundle for signerName example.com/s must be named with prefix example.com:s:, spec.trustBundle: Invalid value: "<value omitted>": entry 0 does not have the CA bit set]',
    );
    expect(clustertrustbundles.validate(obj('x', {})).map((x) => x.detail)).toEqual(['at least one trust anchor must be provided']);
    expect(clustertrustbundles.validate({ metadata: { name: 'x' } })).toEqual([{ type: 'FieldValueRequired', field: 'spec' }]);
  });
  it('checks generateName with the prefix rule when no name is given', () => {
    const gen = (generateName: string): ApiObject => ({ metadata: { generateName }, spec: { signerName: 'example.com/s', trustBundle: pems.ca1 } });
    expect(clustertrustbundles.validate(gen('example.com:s:b-'))).toEqual([]);
    expect(clustertrustbundles.validate(gen('bundle-')).map((e) => e.field)).toEqual(['metadata.generateName']);
  });
  it('keeps the signer name immutable', () => {
    expect(clustertrustbundles.validateUpdate?.(obj('x', { signerName: 'a.com/b' }), obj('x', { signerName: 'a.com/c' }))).toEqual([{ type: 'FieldValueInvalid', field: 'spec.signerName', value: 'a.com/b', detail: 'field is immutable' }]);
  });
});
