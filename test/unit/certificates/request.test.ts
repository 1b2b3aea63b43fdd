import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/api/errors.js';
import { nodeClientCsr } from '../../../src/certificates/csr.js';
import { CertificateRequestError, csrOutcome, submitCsr, waitForCertificate, type CsrClient } from '../../../src/certificates/request.js';
import type { ApiObject, WatchEvent, WatchStream } from '../../../src/client/types.js';
import { generateKeyPair } from '../../../src/pki/x509.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const approved = { type: 'Approved', status: 'True', reason: 'AutoApproved', message: 'ok' };

describe('csrOutcome', () => {
  it.each([
    ['no status', {}, { state: 'pending' }],
    ['approved, no certificate yet', { status: { conditions: [approved] } }, { state: 'pending' }],
    ['a certificate without approval', { status: { certificate: b64('PEM') } }, { state: 'pending' }],
    ['approved and issued', { status: { conditions: [approved], certificate: b64('PEM') } }, { state: 'issued', certificate: 'PEM' }],
    ['denied', { status: { conditions: [{ type: 'Denied', status: 'True', reason: 'Nope', message: 'no' }] } }, { state: 'denied', reason: 'Nope', message: 'no' }],
    ['failed after approval', { status: { conditions: [approved, { type: 'Failed', status: 'True', reason: 'SigningFailed', message: 'ca expired' }] } }, { state: 'failed', reason: 'SigningFailed', message: 'ca expired' }],
    ['a False Denied condition is ignored', { status: { conditions: [{ type: 'Denied', status: 'False' }] } }, { state: 'pending' }],
  ])('%s', (_n, obj, want) => {
    expect(csrOutcome(obj as ApiObject)).toEqual(want);
  });
});

function stream(events: WatchEvent[], fail?: Error): WatchStream {
  return {
    close() {},
    async *[Symbol.asyncIterator]() {
      for (const e of events) yield e;
      if (fail) throw fail;
    },
  };
}

class FakeCsrs implements CsrClient {
  readonly type = { group: 'certificates.platform.io', version: 'v1', resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest', namespaced: false };
  readonly namespace = '';
  objects = new Map<string, ApiObject>();
  gets: Array<() => ApiObject | Error> = [];
  watches: Array<() => WatchStream | Error> = [];
  created: ApiObject[] = [];
  async create(obj: ApiObject): Promise<ApiObject> {
    const name = (obj.metadata as { name: string }).name;
    if (this.objects.has(name)) throw new ApiError(409, 'AlreadyExists', `certificatesigningrequests "${name}" already exists`);
    this.created.push(obj);
    this.objects.set(name, obj);
    return obj;
  }
  async get(name: string): Promise<ApiObject> {
    const next = this.gets.shift();
    const v = next === undefined ? this.objects.get(name) : next();
    if (v === undefined) throw new ApiError(404, 'NotFound', `certificatesigningrequests "${name}" not found`);
    if (v instanceof Error) throw v;
    return v;
  }
  async watch(): Promise<WatchStream> {
    const next = this.watches.shift();
    if (next === undefined) return stream([]);
    const v = next();
    if (v instanceof Error) throw v;
    return v;
  }
  async list(): Promise<never> {
    throw new Error('unused');
  }
}

const opts = (signal = new AbortController().signal, onProblem: (e: unknown) => void = () => {}) => ({ signal, timeoutMs: 10_000, retryDelayMs: () => 1, onProblem });

describe('submitCsr', () => {
  it('creates the request; an existing one with the same key and signer is reused; another key is refused', async () => {
    const key = generateKeyPair();
    const csr = nodeClientCsr('n', key);
    const f = new FakeCsrs();
    await submitCsr(f, csr, key.publicKey, new AbortController().signal);
    expect(f.created).toHaveLength(1);
    await submitCsr(f, nodeClientCsr('n', key), key.publicKey, new AbortController().signal);
    expect(f.created).toHaveLength(1);
    const other = generateKeyPair();
    f.objects.set(csr.name, nodeClientCsr('n', other).object);
    await expect(submitCsr(f, csr, key.publicKey, new AbortController().signal)).rejects.toMatchObject({ problem: 'Incompatible', field: 'spec.request', csr: csr.name });
    f.objects.set(csr.name, { ...csr.object, spec: { ...(csr.object.spec as object), signerName: 'other/signer' } });
    await expect(submitCsr(f, csr, key.publicKey, new AbortController().signal)).rejects.toMatchObject({ problem: 'Incompatible', field: 'spec.signerName' });
  });
});

describe('waitForCertificate', () => {
  const pending: ApiObject = { metadata: { name: 'c', resourceVersion: '5' } };
  const issued: ApiObject = { metadata: { name: 'c', resourceVersion: '7' }, status: { conditions: [approved], certificate: b64('CERT') } };

  it('returns at once when already issued', async () => {
    const f = new FakeCsrs();
    f.gets.push(() => issued);
    await expect(waitForCertificate(f, 'c', opts())).resolves.toBe('CERT');
  });

  it('watches until issued, re-reading after a dropped watch and a failed read', async () => {
    const f = new FakeCsrs();
    const problems: unknown[] = [];
    f.gets.push(() => pending, () => new Error('connection refused'), () => pending);
    f.watches.push(() => stream([{ type: 'MODIFIED', object: { ...pending, status: { conditions: [approved] } } }], new Error('watch reset')), () => stream([{ type: 'BOOKMARK', object: pending }, { type: 'MODIFIED', object: issued }]));
    await expect(waitForCertificate(f, 'c', opts(undefined, (e) => problems.push(e)))).resolves.toBe('CERT');
    expect(problems.map((e) => (e as Error).message)).toEqual(['watch reset', 'connection refused']);
  });

  it.each([
    ['denied', { type: 'MODIFIED' as const, object: { ...pending, status: { conditions: [{ type: 'Denied', status: 'True', reason: 'R', message: 'M' }] } } }, 'Denied'],
    ['failed', { type: 'MODIFIED' as const, object: { ...pending, status: { conditions: [approved, { type: 'Failed', status: 'True', reason: 'R', message: 'M' }] } } }, 'Failed'],
    ['deleted', { type: 'DELETED' as const, object: pending }, 'Deleted'],
  ])('%s ends the wait with CertificateRequestError', async (_n, ev, problem) => {
    const f = new FakeCsrs();
    f.gets.push(() => pending);
    f.watches.push(() => stream([ev]));
    const err = await waitForCertificate(f, 'c', opts()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CertificateRequestError);
    expect(err).toMatchObject({ problem, csr: 'c' });
  });

  it('a missing request is Deleted; the deadline is a Timeout; an abort rejects with its reason', async () => {
    await expect(waitForCertificate(new FakeCsrs(), 'gone', opts())).rejects.toMatchObject({ problem: 'Deleted' });
    const slow = new FakeCsrs();
    slow.gets = Array.from({ length: 1000 }, () => () => new Error('down'));
    await expect(waitForCertificate(slow, 'c', { ...opts(), timeoutMs: 30, retryDelayMs: () => 5 })).rejects.toMatchObject({ problem: 'Timeout', field: 'status.certificate' });
    const ac = new AbortController();
    const stopped = new FakeCsrs();
    stopped.gets = Array.from({ length: 1000 }, () => () => new Error('down'));
    const p = waitForCertificate(stopped, 'c', { ...opts(ac.signal), retryDelayMs: () => 1_000 });
    ac.abort(new Error('stop'));
    await expect(p).rejects.toThrow('stop');
  });
});
