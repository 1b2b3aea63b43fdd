import { describe, expect, it } from 'vitest';
import { AgentError } from '../../../src/errors.js';
import {
  CriError,
  GRPC_STATUS,
  criErrorFromStatus,
  grpcStatusName,
  isAlreadyExists,
  isCriError,
  isDeadlineExceeded,
  isNotFound,
  isTransient,
  isUnavailable,
  isUnimplemented,
  tidyDetails,
  unreachableHint,
  type GrpcStatusName,
} from '../../../src/cri/errors.js';

// code, name, notFound, unavailable, deadline, transient
const TABLE: Array<[number, GrpcStatusName, boolean, boolean, boolean, boolean]> = [
  [1, 'CANCELLED', false, false, false, false],
  [2, 'UNKNOWN', false, false, false, false],
  [3, 'INVALID_ARGUMENT', false, false, false, false],
  [4, 'DEADLINE_EXCEEDED', false, false, true, true],
  [5, 'NOT_FOUND', true, false, false, false],
  [6, 'ALREADY_EXISTS', false, false, false, false],
  [7, 'PERMISSION_DENIED', false, false, false, false],
  [8, 'RESOURCE_EXHAUSTED', false, false, false, true],
  [9, 'FAILED_PRECONDITION', false, false, false, false],
  [10, 'ABORTED', false, false, false, true],
  [11, 'OUT_OF_RANGE', false, false, false, false],
  [12, 'UNIMPLEMENTED', false, false, false, false],
  [13, 'INTERNAL', false, false, false, false],
  [14, 'UNAVAILABLE', false, true, false, true],
  [15, 'DATA_LOSS', false, false, false, false],
  [16, 'UNAUTHENTICATED', false, false, false, false],
];

describe('CriError and the gRPC status mapping', () => {
  it.each(TABLE)('code %i is %s', (code, name, notFound, unavailable, deadline, transient) => {
    expect(grpcStatusName(code)).toBe(name);
    expect(GRPC_STATUS[name]).toBe(code);
    const e = criErrorFromStatus(code, 'details');
    expect(e.status).toBe(name);
    expect(e.grpcCode).toBe(code);
    expect(isNotFound(e)).toBe(notFound);
    expect(isUnavailable(e)).toBe(unavailable);
    expect(isDeadlineExceeded(e)).toBe(deadline);
    expect(isTransient(e)).toBe(transient);
    expect(isUnimplemented(e)).toBe(name === 'UNIMPLEMENTED');
    expect(isAlreadyExists(e)).toBe(name === 'ALREADY_EXISTS');
  });

  it('covers every status of the gRPC specification', () => {
    expect(Object.keys(GRPC_STATUS)).toHaveLength(17);
    expect(TABLE.map(([c]) => c)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
  });

  it('reads codes outside the specification as UNKNOWN', () => {
    expect(grpcStatusName(99)).toBe('UNKNOWN');
    expect(grpcStatusName(-1)).toBe('UNKNOWN');
    expect(criErrorFromStatus(42, 'x')).toMatchObject({ status: 'UNKNOWN', grpcCode: 2 });
  });

  it('is an AgentError with code ECRI, method, endpoint, details and cause', () => {
    const cause = new Error('wire');
    const e = new CriError('NOT_FOUND', 'container "abc" not found', { method: 'RuntimeService/ContainerStatus', endpoint: 'unix:///run/x.sock', cause });
    expect(e).toBeInstanceOf(AgentError);
    expect(e.name).toBe('CriError');
    expect(e.code).toBe('ECRI');
    expect(e.message).toBe('RuntimeService/ContainerStatus: NOT_FOUND: container "abc" not found');
    expect(e.details).toBe('container "abc" not found');
    expect(e.endpoint).toBe('unix:///run/x.sock');
    expect(e.cause).toBe(cause);
    expect(new CriError('ABORTED', 'x').message).toBe('ABORTED: x');
    expect(isCriError(e)).toBe(true);
  });

  it('answers false for anything that is not a CriError', () => {
    for (const v of [new Error('NOT_FOUND'), new AgentError('ECRI', 'x'), { status: 'UNAVAILABLE' }, undefined, 'UNAVAILABLE']) {
      expect(isNotFound(v) || isUnavailable(v) || isDeadlineExceeded(v) || isTransient(v) || isCriError(v)).toBe(false);
    }
  });
});

describe('details of a runtime that cannot be reached', () => {
  const NO_CONN = 'No connection established. Last error: Error: connect ENOENT /run/x.sock.';
  it.each<[string, string]>([
    [`${NO_CONN} Resolution note: `, NO_CONN],
    [`${NO_CONN} Resolution note:`, NO_CONN],
    [`${NO_CONN} Resolution note: \n`, NO_CONN],
    ['No addresses resolved. Resolution note: DNS lookup failed', 'No addresses resolved. Resolution note: DNS lookup failed'],
    ['container "web" not found', 'container "web" not found'],
    ['', ''],
  ])('tidyDetails(%j) is %j', (details, tidy) => {
    expect(tidyDetails(details)).toBe(tidy);
    expect(criErrorFromStatus(14, details).details).toBe(tidy);
  });

  it('the error message never ends with an empty Resolution note', () => {
    expect(criErrorFromStatus(14, `${NO_CONN} Resolution note: `, { method: 'RuntimeService/Version' }).message).toBe(`RuntimeService/Version: UNAVAILABLE: ${NO_CONN}`);
  });

  it.each<[string, RegExp | undefined]>([
    ['connect ENOENT /run/x.sock', /^no socket exists at unix:\/\/\/run\/x\.sock: is the container runtime running/],
    ['connect ECONNREFUSED /run/x.sock', /^nothing accepts connections at unix:\/\/\/run\/x\.sock/],
    ['connect EACCES /run/x.sock', /^permission denied on unix:\/\/\/run\/x\.sock/],
    ['Deadline exceeded', undefined],
  ])('unreachableHint(%j)', (details, hint) => {
    const got = unreachableHint(details, 'unix:///run/x.sock');
    if (hint === undefined) expect(got).toBeUndefined();
    else expect(got).toMatch(hint);
  });
});
