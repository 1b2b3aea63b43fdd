import { describe, expect, it } from 'vitest';
import { parseLogQuery } from '../../../../src/server/logs/options.js';

const NOW = Date.UTC(2024, 0, 2, 3, 4, 5);
const parse = (q: string) => parseLogQuery(new URLSearchParams(q), NOW);

describe('parseLogQuery', () => {
  it.each([
    ['', { follow: false, previous: false, timestamps: false, tailLines: undefined, limitBytes: undefined, sinceMs: undefined }],
    ['follow&previous=true&timestamps=1', { follow: true, previous: true, timestamps: true, tailLines: undefined, limitBytes: undefined, sinceMs: undefined }],
    ['follow=false&previous=0&timestamps=FALSE', { follow: false, previous: false, timestamps: false, tailLines: undefined, limitBytes: undefined, sinceMs: undefined }],
    ['tailLines=10&limitBytes=5', { follow: false, previous: false, timestamps: false, tailLines: 10, limitBytes: 5, sinceMs: undefined }],
    ['tailLines=0', { follow: false, previous: false, timestamps: false, tailLines: 0, limitBytes: undefined, sinceMs: undefined }],
    ['tail=7', { follow: false, previous: false, timestamps: false, tailLines: 7, limitBytes: undefined, sinceMs: undefined }],
    ['tailLines=3&tail=all', { follow: false, previous: false, timestamps: false, tailLines: undefined, limitBytes: undefined, sinceMs: undefined }],
    ['sinceSeconds=60', { follow: false, previous: false, timestamps: false, tailLines: undefined, limitBytes: undefined, sinceMs: NOW - 60_000 }],
    ['sinceTime=2024-01-02T03:00:00Z', { follow: false, previous: false, timestamps: false, tailLines: undefined, limitBytes: undefined, sinceMs: Date.UTC(2024, 0, 2, 3) }],
  ])('%j', (q, want) => expect(parse(q)).toEqual({ ok: true, options: want }));

  it.each([
    ['tailLines=abc', 400, 'tailLines'],
    ['tail=ten', 400, 'tailLines'],
    ['limitBytes=1.5', 400, 'limitBytes'],
    ['sinceSeconds=1e3', 400, 'sinceSeconds'],
    ['tailLines=99999999999999999999', 400, 'tailLines'],
    ['sinceTime=yesterday', 400, 'sinceTime'],
    ['sinceTime=2024-01-02', 400, 'sinceTime'],
    ['tailLines=-1', 422, 'tailLines'],
    ['limitBytes=0', 422, 'limitBytes'],
    ['limitBytes=-5', 422, 'limitBytes'],
    ['sinceSeconds=0', 422, 'sinceSeconds'],
    ['sinceSeconds=-10', 422, 'sinceSeconds'],
    ['sinceSeconds=10&sinceTime=2024-01-02T03:00:00Z', 422, 'sinceTime or sinceSeconds'],
  ])('%j → %i naming %s', (q, status, name) => {
    const r = parse(q);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.status).toBe(status);
    expect(r.message).toContain(name);
  });
});
