import { describe, expect, it } from 'vitest';
import { certificatesigningrequests as csrs, prepareApproval, setRequester, validateApproval } from '../../../../../src/apiserver/registry/resources/certificatesigningrequests.js';
import { certificateProblem } from '../../../../../src/apiserver/registry/resources/csr-rules.js';
import type { ApiObject } from '../../../../../src/apiserver/registry/types.js';
import { makeTestPems } from './certs.js';

const pems = makeTestPems();
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const csr = (spec: Record<string, unknown> = {}, status?: Record<string, unknown>): ApiObject => ({
  metadata: { name: 'node-csr-1', resourceVersion: '5', uid: 'u' },
  spec: { request: b64(pems.csr), signerName: 'platform.io/kube-apiserver-client-agent', usages: ['digital signature', 'client auth'], ...spec },
  ...(status === undefined ? {} : { status }),
});
const approved = { type: 'Approved', status: 'True', reason: 'AutoApproved' };
const denied = { type: 'Denied', status: 'True' };
const errs = (list: ReturnType<typeof csrs.validate>): string[] => list.map((e) => `${e.field}: ${e.type}${e.detail === undefined ? '' : ` ${e.detail}`}`);

describe('CSR validation', () => {
  it.each<[string, ApiObject, string[]]>([
    ['valid', csr(), []],
    ['not a CSR', csr({ request: b64(pems.ca1) }), ['spec.request: FieldValueInvalid PEM block type must be CERTIFICATE REQUEST']],
    ['no signer', csr({ signerName: '' }), ['spec.signerName: FieldValueRequired']],
    ['no usages', csr({ usages: [] }), ['spec.usages: FieldValueRequired usages must be provided']],
    ['unknown usage', csr({ usages: ['client auth', 'flying'] }), ['spec.usages[1]: FieldValueNotSupported']],
    ['duplicate usage', csr({ usages: ['client auth', 'client auth'] }), ['spec.usages[1]: FieldValueDuplicate']],
    ['short expiration', csr({ expirationSeconds: 599 }), ['spec.expirationSeconds: FieldValueInvalid may not specify a duration less than 600 seconds (10 minutes)']],
    ['600 s ok', csr({ expirationSeconds: 600 }), []],
    ['approved and denied', csr({}, { conditions: [approved, denied] }), ['status.conditions: FieldValueInvalid Approved and Denied conditions are mutually exclusive']],
    ['approved twice', csr({}, { conditions: [approved, approved] }), ['status.conditions[1].type: FieldValueDuplicate']],
    ['approved False', csr({}, { conditions: [{ type: 'Approved', status: 'False' }] }), ['status.conditions[0].status: FieldValueNotSupported']],
    ['condition without type', csr({}, { conditions: [{ status: 'True' }] }), ['status.conditions[0].type: FieldValueRequired']],
    ['certificate with a key block', csr({}, { conditions: [approved], certificate: b64(`${pems.ca1}-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n`) }), ['status.certificate: FieldValueInvalid only CERTIFICATE PEM blocks are allowed, found "EC PRIVATE KEY"']],
  ])('%s', (_n, obj, want) => expect(errs(csrs.validate(obj))).toEqual(want));

  it.each<[string, string, string | undefined]>([
    ['good', pems.ca1, undefined],
    ['empty', '', 'must contain at least one CERTIFICATE PEM block'],
    ['headers', pems.ca1.replace('-----BEGIN CERTIFICATE-----\n', '-----BEGIN CERTIFICATE-----\nA: b\n\n'), 'no PEM block headers are permitted'],
  ])('certificate %s', (_n, pem, want) => expect(certificateProblem(pem)).toBe(want));
});

describe('CSR updates', () => {
  it('keeps the spec on main-resource updates and drops status on create', () => {
    const changed = csr({ usages: ['server auth'] });
    csrs.prepareForUpdate?.(changed, csr());
    expect((changed.spec as { usages: string[] }).usages).toEqual(['digital signature', 'client auth']);
    const created = csr({}, { conditions: [approved] });
    csrs.prepareForCreate?.(created);
    expect(created.status).toBeUndefined();
  });

  it('stamps the requester', () => {
    const obj = csr({ username: 'forged' });
    setRequester(obj, { name: 'system:node:n1', uid: '', groups: ['system:nodes', 'system:authenticated'], extra: {} });
    expect(obj.spec).toMatchObject({ username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] });
    expect(obj.spec).not.toHaveProperty('uid');
  });

  it.each<[string, ApiObject, ApiObject, string[]]>([
    ['status may not approve', csr({}, { conditions: [approved] }), csr(), ['status.conditions: FieldValueForbidden the Approved and Denied conditions can only be changed through the approval subresource']],
    ['status may not remove approval', csr({}, { conditions: [] }), csr({}, { conditions: [approved] }), ['status.conditions: FieldValueForbidden updates may not remove a condition of type "Approved"', 'status.conditions: FieldValueForbidden the Approved and Denied conditions can only be changed through the approval subresource']],
    ['issuing after approval', csr({}, { conditions: [approved], certificate: b64(pems.leaf) }), csr({}, { conditions: [approved] }), []],
    ['issuing without approval', csr({}, { certificate: b64(pems.leaf) }), csr(), ['status.certificate: FieldValueForbidden certificate issuance requires an Approved condition']],
    ['changing an issued certificate', csr({}, { conditions: [approved], certificate: b64(pems.ca1) }), csr({}, { conditions: [approved], certificate: b64(pems.leaf) }), ['status.certificate: FieldValueForbidden updates may not modify existing certificate content']],
  ])('%s', (_n, obj, old, want) => expect(errs(csrs.validateStatusUpdate?.(obj, old) ?? [])).toEqual(want));

  it('approval changes only Approved/Denied and is append-only', () => {
    const old = csr({}, { conditions: [{ type: 'Failed', status: 'True' }] });
    const body = csr({ usages: ['server auth'] }, { conditions: [approved], certificate: b64(pems.leaf) });
    const next = prepareApproval(body, old);
    expect(next.spec).toEqual(old.spec);
    expect(next.status).toEqual({ conditions: [approved, { type: 'Failed', status: 'True' }] });
    expect(validateApproval(next, old)).toEqual([]);
    const flip = prepareApproval(csr({}, { conditions: [denied] }), csr({}, { conditions: [approved] }));
    expect(errs(validateApproval(flip, csr({}, { conditions: [approved] })))).toEqual(['status.conditions: FieldValueForbidden updates may not remove a condition of type "Approved"']);
  });
});
