import { describe, expect, it } from 'vitest';
import { forbiddenMessage, requestAttributes, subresourcesOf, verbOf } from '../../../../src/server/auth/index.js';

describe('subresourcesOf (whole path segments)', () => {
  it.each([
    ['/stats/summary', ['stats']],
    ['/stats', ['stats']],
    ['/statsfoo', ['proxy']],
    ['/metrics', ['metrics']],
    ['/metrics/cadvisor', ['metrics']],
    ['/metrics/probes', ['metrics']],
    ['/metricsx', ['proxy']],
    ['/logs/', ['log']],
    ['/logs/syslog', ['log']],
    ['/logsx', ['proxy']],
    ['/pods', ['pods', 'proxy']],
    ['/pods/', ['pods', 'proxy']],
    ['/podsx', ['proxy']],
    ['/runningpods/', ['pods', 'proxy']],
    ['/healthz', ['healthz', 'proxy']],
    ['/healthz/ping', ['healthz', 'proxy']],
    ['/configz', ['configz', 'proxy']],
    ['/spec/', ['spec', 'proxy']],
    ['/exec/ns/pod/c', ['proxy']],
    ['/containerLogs/ns/pod/c', ['proxy']],
    ['/portForward/ns/pod', ['proxy']],
    ['/', ['proxy']],
  ])('%s → %j', (path, want) => {
    expect(subresourcesOf(path)).toEqual(want);
  });
});

describe('verbOf', () => {
  it.each([
    ['GET', 'get'],
    ['HEAD', 'get'],
    ['OPTIONS', 'get'],
    ['POST', 'create'],
    ['PUT', 'update'],
    ['PATCH', 'patch'],
    ['DELETE', 'delete'],
    ['get', 'get'],
    ['CONNECT', ''],
    ['TRACE', ''],
  ])('%s → %j', (m, v) => {
    expect(verbOf(m)).toBe(v);
  });
});

describe('requestAttributes', () => {
  it('asks about the node, the specific subresource first', () => {
    const user = { name: 'alice', groups: ['devs'] };
    const attrs = requestAttributes({ user, method: 'GET', path: '/pods', nodeName: 'node1' });
    expect(attrs).toEqual([
      { user, verb: 'get', apiGroup: '', apiVersion: 'v1', resource: 'nodes', subresource: 'pods', name: 'node1', path: '/pods' },
      { user, verb: 'get', apiGroup: '', apiVersion: 'v1', resource: 'nodes', subresource: 'proxy', name: 'node1', path: '/pods' },
    ]);
  });
});

describe('forbiddenMessage', () => {
  it('words the denial as upstream', () => {
    expect(forbiddenMessage({ name: 'bob', groups: [] }, 'create', ['proxy'])).toBe('Forbidden (user=bob, verb=create, resource=nodes, subresource(s)=[proxy])');
    expect(forbiddenMessage({ name: 'bob', groups: [] }, 'get', ['pods', 'proxy'])).toBe('Forbidden (user=bob, verb=get, resource=nodes, subresource(s)=[pods proxy])');
  });
});
