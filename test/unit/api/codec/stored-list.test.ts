// encodeListFromStored: a List page from stored envelopes that carry no
// resourceVersion equals encoding the decoded items with their versions set.
import { describe, expect, it } from 'vitest';
import { type ApiCodec, decodeEnvelope, encodeEnvelope, isCodecError, loadApiCodec } from '../../../../src/api/codec/index.js';
import { envelopeHead, rawAfterHead } from '../../../../src/api/codec/stored-list.js';
import { FIXTURES, LEASE, POD, SECRET } from '../../../fixtures/api/objects.js';

type Obj = Record<string, unknown>;
const codec: Promise<ApiCodec> = loadApiCodec();

const withoutVersion = (o: Obj): Obj => {
  const { resourceVersion: _rv, ...metadata } = (o['metadata'] ?? {}) as Obj;
  return { ...o, metadata };
};
const withVersion = (o: Obj, rv: string): Obj => ({ ...o, metadata: { ...((o['metadata'] ?? {}) as Obj), resourceVersion: rv } });

/** What the server sent before: decode each stored object, set its version, encode the whole list. */
function reference(c: ApiCodec, listKind: string, apiVersion: string, meta: Obj, stored: readonly { envelope: Buffer; resourceVersion: string }[]): Buffer {
  const items = stored.map((s) => {
    const { kind: _k, apiVersion: _a, ...body } = c.decode(s.envelope).object;
    return withVersion(body, s.resourceVersion);
  });
  return c.encode({ kind: listKind, apiVersion, metadata: meta, items });
}

const CASES: readonly { name: string; obj: Obj }[] = [
  { name: 'pod (metadata with later fields: labels, annotations, ...)', obj: POD },
  { name: 'secret', obj: SECRET },
  { name: 'lease', obj: LEASE },
  { name: 'metadata with only a name', obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: 'b' } } },
  { name: 'metadata with a field after resourceVersion only', obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generation: 3 } } },
  { name: 'empty metadata', obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {}, data: { a: 'b' } } },
  { name: 'no metadata', obj: { apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'b' } } },
  { name: 'a stored resourceVersion is replaced', obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', resourceVersion: '1', uid: 'u', generation: 2 } } },
];

describe('encodeListFromStored', () => {
  it.each(CASES.map((c) => [c.name, c.obj] as const))('%s: equals encoding the decoded items with their versions', async (_name, obj) => {
    const c = await codec;
    const apiVersion = String(obj['apiVersion']);
    const kind = String(obj['kind']);
    const stored = ['7', '12345678901', '8'].map((rv) => ({ envelope: c.encode(obj['metadata'] === undefined || (obj['metadata'] as Obj)['resourceVersion'] !== undefined ? obj : withoutVersion(obj)), resourceVersion: rv }));
    const meta = { resourceVersion: '99', continue: 'abc', remainingItemCount: 3 };
    const page = c.encodeListFromStored({ apiVersion, kind: `${kind}List` }, meta, stored);
    expect(page.equals(reference(c, `${kind}List`, apiVersion, meta, stored))).toBe(true);
    const back = c.decode(page).object as { items: { metadata: { resourceVersion: string } }[] };
    expect(back.items.map((i) => i.metadata.resourceVersion)).toEqual(['7', '12345678901', '8']);
  });

  it('assembles every served kind that has a List', async () => {
    const c = await codec;
    for (const f of FIXTURES) {
      const listKind = `${String(f.obj['kind'])}List`;
      const apiVersion = String(f.obj['apiVersion']);
      // Discovery's APIGroupList and the like hold no objects with metadata.
      if (!c.hasKind({ apiVersion, kind: listKind }) || f.obj['metadata'] === undefined) continue;
      const stored = [{ envelope: c.encode(withoutVersion(f.obj)), resourceVersion: '5' }];
      expect(c.encodeListFromStored({ apiVersion, kind: listKind }, { resourceVersion: '5' }, stored).equals(reference(c, listKind, apiVersion, { resourceVersion: '5' }, stored)), f.name).toBe(true);
    }
  });

  it('an empty page is the list with its metadata only', async () => {
    const c = await codec;
    const page = c.encodeListFromStored({ apiVersion: 'v1', kind: 'PodList' }, { resourceVersion: '3' }, []);
    expect(c.decode(page).object).toEqual({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '3' } });
  });

  it('refuses an envelope of another kind, naming both', async () => {
    const c = await codec;
    const stored = [{ envelope: c.encode(SECRET), resourceVersion: '1' }];
    let err: unknown;
    try {
      c.encodeListFromStored({ apiVersion: 'v1', kind: 'PodList' }, { resourceVersion: '1' }, stored);
    } catch (e) {
      err = e;
    }
    expect(isCodecError(err) && err.code === 'EKIND' && err.message).toBe('a PodList cannot hold a v1 Secret');
  });
});

describe('decodeMetadata', () => {
  it.each(FIXTURES.filter((f) => f.obj['metadata'] !== undefined).map((f) => [f.name, f.obj] as const))('%s: equals the metadata of a full decode', async (_name, obj) => {
    const c = await codec;
    const bytes = c.encode(obj);
    expect(c.decodeMetadata(bytes)).toEqual(c.decode(bytes).object['metadata']);
  });

  it('is undefined for an object without metadata, and merges a repeated metadata field', async () => {
    const c = await codec;
    expect(c.decodeMetadata(c.encode({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'b' } }))).toBeUndefined();
    const a = c.encodeRaw({ metadata: { name: 'x' } }, { apiVersion: 'v1', kind: 'ConfigMap' });
    const b = c.encodeRaw({ metadata: { labels: { k: 'v' } }, data: { a: 'b' } }, { apiVersion: 'v1', kind: 'ConfigMap' });
    const env = encodeEnvelope({ apiVersion: 'v1', kind: 'ConfigMap' }, Buffer.concat([a, b]));
    expect(c.decodeMetadata(env)).toEqual({ name: 'x', labels: { k: 'v' } });
  });
});

describe('rawAfterHead', () => {
  const POD_TM = { apiVersion: 'v1', kind: 'Pod' };
  const raw = Buffer.from('0a030a0161', 'hex');
  const plain = encodeEnvelope(POD_TM, raw);
  it.each([
    ['an envelope as encodeEnvelope writes it', plain, raw],
    ['without the empty trailing fields', plain.subarray(0, plain.length - 4), raw],
    ['another kind', encodeEnvelope({ apiVersion: 'v1', kind: 'Secret' }, raw), undefined],
    ['another apiVersion', encodeEnvelope({ apiVersion: 'v2', kind: 'Pod' }, raw), undefined],
    ['a contentEncoding', Buffer.concat([plain.subarray(0, plain.length - 4), Buffer.from('1a01782200', 'hex')]), undefined],
    ['only the head', envelopeHead(POD_TM), undefined],
  ])('%s', (_what, envelope, expected) => {
    const got = rawAfterHead(envelopeHead(POD_TM), envelope);
    expect(got?.toString('hex')).toBe(expected?.toString('hex'));
    if (expected !== undefined) expect(got?.toString('hex')).toBe(decodeEnvelope(envelope).raw.toString('hex'));
  });
});

