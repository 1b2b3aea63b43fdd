import { describe, expect, it } from 'vitest';
import { contentType, nodeLogTarget, renderListing } from '../../../../src/server/logs/node-logs.js';

describe('nodeLogTarget', () => {
  it.each([
    ['/logs/', { kind: 'path', segments: [], trailingSlash: true }],
    ['/logs/syslog', { kind: 'path', segments: ['syslog'], trailingSlash: false }],
    ['/logs/pods/', { kind: 'path', segments: ['pods'], trailingSlash: true }],
    ['/logs/a//./b', { kind: 'path', segments: ['a', 'b'], trailingSlash: false }],
    ['/logs/with%20space.log', { kind: 'path', segments: ['with space.log'], trailingSlash: false }],
    ['/logs/a%2Fb', { kind: 'path', segments: ['a', 'b'], trailingSlash: false }],
  ])('%s', (p, want) => expect(nodeLogTarget(p)).toEqual(want));

  it.each([
    ['/logs/../etc/passwd', 400],
    ['/logs/%2e%2e/etc/passwd', 400],
    ['/logs/%2E%2E%2Fetc%2Fpasswd', 400],
    ['/logs/a/..%2f..%2fetc', 400],
    ['/logs/..%5c..%5cetc', 400],
    ['/logs/%00', 400],
    ['/logs/%zz', 400],
    ['/logsx', 404],
  ])('%s → %i', (p, status) => expect(nodeLogTarget(p)).toMatchObject({ kind: 'error', status }));
});

describe('renderListing', () => {
  it('lists sorted, directories with a slash, names escaped', () => {
    expect(renderListing([{ name: 'b.log', dir: false }, { name: 'a', dir: true }, { name: '<x>&"', dir: false }, { name: 'c:d', dir: false }])).toBe(
      '<!doctype html>\n<meta name="viewport" content="width=device-width">\n<pre>\n' +
        '<a href="%3Cx%3E%26%22">&lt;x&gt;&amp;&#34;</a>\n<a href="a/">a/</a>\n<a href="b.log">b.log</a>\n<a href="./c%3Ad">c:d</a>\n</pre>\n',
    );
  });
});

describe('contentType', () => {
  it.each([
    ['x.log', 'plain text\n', 'text/plain; charset=utf-8'],
    ['x', 'héllo', 'text/plain; charset=utf-8'],
    ['x.gz', 'anything', 'application/gzip'],
    ['wtmp', '\0\0\x01', 'application/octet-stream'],
    ['x.bin', '\xff\xfe\xfd\xfc\xfb\xfa', 'application/octet-stream'],
  ])('%s', (name, head, want) => expect(contentType(name, Buffer.from(head, name === 'x.bin' ? 'latin1' : 'utf8'))).toBe(want));
});
