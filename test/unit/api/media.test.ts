import { describe, expect, it } from 'vitest';
import { acceptsGzip, negotiateInput, negotiateOutput, parseAccept, shouldGzip, wantsPretty } from '../../../src/api/media.js';
import { thrownApiError } from '../../helpers/api-error.js';

const thrown = thrownApiError;
const PB = 'application/vnd.platform.protobuf';
const TABLE = 'application/json;as=Table;g=meta.platform.io;v=v1';

describe('Accept parsing', () => {
  it('orders by q, then specificity, then position', () => {
    const c = parseAccept('*/*;q=0.5, application/*, application/json;q=0.9, text/plain;format=x');
    expect(c.map((x) => `${x.type}/${x.subtype}`)).toEqual(['text/plain', 'application/*', 'application/json', '*/*']);
    expect(c[0]!.params).toEqual({ format: 'x' });
  });
  it('bad q counts as 0; empty header is no clauses', () => {
    expect(parseAccept('application/json;q=x')[0]!.q).toBe(0);
    expect(parseAccept('')).toEqual([]);
    expect(parseAccept(undefined)).toEqual([]);
  });
});

describe('response negotiation', () => {
  it.each([
    [undefined, false, 'application/json', 'application/json'],
    ['', false, 'application/json', 'application/json'],
    ['*/*', false, 'application/json', 'application/json'],
    ['application/*', false, 'application/json', 'application/json'],
    ['application/yaml', false, 'application/yaml', 'application/yaml'],
    [`${PB},application/json`, false, PB, PB],
    [`${PB};q=0.5,application/json`, false, 'application/json', 'application/json'],
    ['text/html, application/json;q=0.1', false, 'application/json', 'application/json'],
    ['application/json;stream=watch', false, 'application/json', 'application/json'],
    [`${PB};stream=watch`, true, PB, `${PB};stream=watch`],
    ['application/json', true, 'application/json', 'application/json'],
    ['application/yaml;stream=watch, application/json', true, 'application/json', 'application/json'],
    ['*/*', true, 'application/json', 'application/json'],
    [`${TABLE};stream=other, application/json`, false, 'application/json', 'application/json'],
  ])('Accept %j (watch %s) → %s', (accept, watch, mediaType, contentType) => {
    const o = negotiateOutput({ accept, watch, includeObject: null });
    expect([o.mediaType, o.contentType, o.table]).toEqual([mediaType, contentType, undefined]);
  });

  it.each([
    [TABLE, null, { version: 'v1', includeObject: 'Metadata' }],
    ['application/json;as=Table;g=meta.platform.io;v=v1beta1', 'None', { version: 'v1beta1', includeObject: 'None' }],
    [`${TABLE}, application/json`, 'Object', { version: 'v1', includeObject: 'Object' }],
    ['application/yaml;as=Table;v=v1;g=meta.platform.io', null, { version: 'v1', includeObject: 'Metadata' }],
  ])('Table: %j includeObject=%j', (accept, includeObject, table) => {
    expect(negotiateOutput({ accept, watch: false, includeObject }).table).toEqual(table);
  });

  it('falls back past conversions it cannot serve', () => {
    for (const a of [`${PB};as=Table;g=meta.platform.io;v=v1, application/json`, 'application/json;as=Table;g=meta.k8s.io;v=v1, application/json', 'application/json;as=Table;g=meta.platform.io;v=v2, application/json', 'application/json;as=Foo;g=meta.platform.io;v=v1, application/json']) {
      expect(negotiateOutput({ accept: a, watch: false, includeObject: null })).toMatchObject({ mediaType: 'application/json', table: undefined });
    }
  });

  it.each([
    ['text/html', false, 'only the following media types are accepted: application/json, application/yaml, application/vnd.platform.protobuf'],
    [`${PB};as=Table;g=meta.platform.io;v=v1`, false, 'only the following media types are accepted: application/json, application/yaml, application/vnd.platform.protobuf'],
    ['application/json;q=0', false, 'only the following media types are accepted: application/json, application/yaml, application/vnd.platform.protobuf'],
    ['application/yaml', true, 'only the following media types are accepted: application/json;stream=watch, application/vnd.platform.protobuf;stream=watch'],
    // upstream picks YAML first here and then finds it has no stream form
    ['application/yaml, application/json', true, 'only the following media types are accepted: application/json;stream=watch, application/vnd.platform.protobuf;stream=watch'],
    ['text/html', true, 'only the following media types are accepted: application/json, application/yaml, application/vnd.platform.protobuf'],
  ])('%j (watch %s) is a 406', (accept, watch, msg) => {
    const e = thrown(() => negotiateOutput({ accept, watch, includeObject: null }));
    expect([e.code, e.reason, e.message]).toEqual([406, 'NotAcceptable', msg]);
  });

  it('a type without protobuf is never served as protobuf', () => {
    expect(thrown(() => negotiateOutput({ accept: PB, watch: false, includeObject: null, protobuf: false })).message).toBe('only the following media types are accepted: application/json, application/yaml');
  });

  it('a bad includeObject is a 400 when a Table is asked for, ignored otherwise', () => {
    const e = thrown(() => negotiateOutput({ accept: TABLE, watch: false, includeObject: 'All' }));
    expect([e.code, e.message]).toEqual([400, "Unable to convert to Table as requested: includeObject: Invalid value: \"All\": must be 'Metadata', 'Object', 'None', or empty"]);
    expect(negotiateOutput({ accept: 'application/json', watch: false, includeObject: 'All' }).mediaType).toBe('application/json');
  });

  it('pretty=1 in Accept', () => expect(negotiateOutput({ accept: 'application/json;pretty=1', watch: false, includeObject: null }).pretty).toBe(true));
});

describe('request bodies', () => {
  it.each([
    [undefined, false, { kind: 'object', mediaType: 'application/json' }],
    ['application/json; charset=utf-8', false, { kind: 'object', mediaType: 'application/json' }],
    ['application/yaml', false, { kind: 'object', mediaType: 'application/yaml' }],
    [PB, false, { kind: 'object', mediaType: PB }],
    ['application/json-patch+json', true, { kind: 'patch', patchType: 'application/json-patch+json' }],
    ['application/merge-patch+json', true, { kind: 'patch', patchType: 'application/merge-patch+json' }],
    ['application/strategic-merge-patch+json', true, { kind: 'patch', patchType: 'application/strategic-merge-patch+json' }],
    ['application/apply-patch+yaml', true, { kind: 'patch', patchType: 'application/apply-patch+yaml' }],
  ])('%j (patch %s)', (ct, patch, want) => expect(negotiateInput(ct, patch)).toEqual(want));

  it.each([
    ['text/plain', false, 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.platform.protobuf'],
    ['application/json', true, 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml'],
    [undefined, true, 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml'],
  ])('%j (patch %s) is a 415', (ct, patch, msg) => {
    const e = thrown(() => negotiateInput(ct, patch));
    expect([e.code, e.reason, e.message]).toEqual([415, 'UnsupportedMediaType', msg]);
  });
  it('a narrowed patch set refuses the others', () => {
    expect(thrown(() => negotiateInput('application/strategic-merge-patch+json', true, ['application/merge-patch+json'])).message).toBe('the body of the request was in an unknown format - accepted media types include: application/merge-patch+json');
  });
});

describe('gzip (§4.7)', () => {
  it.each([
    ['gzip', true],
    ['gzip, deflate, br', true],
    ['deflate, GZIP;q=0.5', true],
    ['gzip;q=0', false],
    ['*', true],
    ['*;q=0', false],
    ['*, gzip;q=0', false],
    ['identity', false],
    [undefined, false],
  ])('Accept-Encoding %j → %s', (h, want) => expect(acceptsGzip(h)).toBe(want));
  it.each([
    ['get', true, true],
    ['list', true, true],
    ['watch', true, false],
    ['create', true, false],
    ['get', false, false],
  ])('verb %s, gate %s → %s', (verb, gateOn, want) => expect(shouldGzip({ verb, acceptEncoding: 'gzip', gateOn })).toBe(want));
});

describe('pretty output', () => {
  it.each([
    [true, false, undefined, true],
    [false, true, 'curl/8', false],
    [undefined, true, undefined, true],
    [undefined, false, 'curl/8.5', true],
    [undefined, false, 'Mozilla/5.0 (X11)', true],
    [undefined, false, 'agent/1.0', false],
    [undefined, false, undefined, false],
  ])('pretty=%s acceptPretty=%s UA=%s → %s', (pretty, acceptPretty, userAgent, want) => expect(wantsPretty({ pretty, acceptPretty, userAgent })).toBe(want));
});
