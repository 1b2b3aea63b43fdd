// proto/etcd against etcd's wire format: raw bytes written by hand from
// upstream's field numbers and types (etcd 3.4 rpc.proto / kv.proto), so a
// renumbered or retyped field fails here, not against a live etcd.
import { describe, expect, it } from 'vitest';
import { loadEtcdProto } from '../../../../src/apiserver/storage/etcd-proto.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
/** The one-byte length prefix of a short hex-encoded message. */
const len = (hexBytes: string): string => (hexBytes.length / 2).toString(16).padStart(2, '0');

describe('proto/etcd wire format', () => {
  it('RangeRequest: key 1, range_end 2, limit 3, revision 4, count_only 9', async () => {
    const c = (await loadEtcdProto()).method('KV', 'Range');
    expect(c.path).toBe('/etcdserverpb.KV/Range');
    expect(hex(c.serialize({ key: Buffer.from('a'), rangeEnd: Buffer.from('b'), limit: 2, revision: 5, countOnly: true }))).toBe('0a0161' + '120162' + '1802' + '2005' + '4801');
  });

  it('TxnRequest: compare 1 (result 1, target 2, key 3, mod_revision 6), success 2 (request_put 2: key 1, value 2, prev_kv 4), failure 3 (request_range 1)', async () => {
    const c = (await loadEtcdProto()).method('KV', 'Txn');
    const bytes = c.serialize({
      compare: [{ result: 'GREATER', target: 'MOD', key: Buffer.from('k'), modRevision: 7 }],
      success: [{ requestPut: { key: Buffer.from('k'), value: Buffer.from('v'), prevKv: true } }],
      failure: [{ requestRange: { key: Buffer.from('k') } }],
    });
    const compare = '0801' + '1002' + '1a016b' + '3007';
    const put = '0a016b' + '120176' + '2001';
    const range = '0a016b';
    expect(hex(bytes)).toBe(`0a09${compare}` + `120a1208${put}` + `1a050a03${range}`);
  });

  it('WatchRequest create_request 1: key 1, range_end 2, start_revision 3, prev_kv 6; progress_request 3', async () => {
    const c = (await loadEtcdProto()).method('Watch', 'Watch');
    expect(c.path).toBe('/etcdserverpb.Watch/Watch');
    expect(hex(c.serialize({ createRequest: { key: Buffer.from('p'), rangeEnd: Buffer.from('q'), startRevision: 9, prevKv: true } }))).toBe('0a0a' + '0a0170' + '120171' + '1809' + '3001');
    expect(hex(c.serialize({ progressRequest: {} }))).toBe('1a00');
  });

  it('WatchResponse: header 1 (revision 3), created 3, compact_revision 5, events 11 (type 1, kv 2, prev_kv 3; KeyValue key 1, create 2, mod 3, version 4, value 5)', async () => {
    const c = (await loadEtcdProto()).method('Watch', 'Watch');
    const kv = '0a0161' + '1002' + '1803' + '2001' + '2a0178';
    const event = '0801' + `12${len(kv)}${kv}` + `1a${len(kv)}${kv}`;
    const wire = Buffer.from('0a021804' + '1801' + '2803' + `5a${len(event)}${event}`, 'hex');
    expect(c.deserialize(wire)).toMatchObject({
      header: { revision: 4 },
      created: true,
      compactRevision: 3,
      events: [{ type: 'DELETE', kv: { key: Buffer.from('a'), createRevision: 2, modRevision: 3, version: 1, value: Buffer.from('x') }, prevKv: { modRevision: 3 } }],
    });
  });
});
