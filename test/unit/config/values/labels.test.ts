import { describe, expect, it } from 'vitest';
import { isAgentLabel, parseNodeLabels, validateNodeLabels } from '../../../../src/config/values/labels.js';

const RESERVED_SUFFIX =
  ": labels in the 'platform.io' namespace must begin with an allowed prefix (agent.platform.io, node.platform.io) or be in the specifically allowed set " +
  '(beta.platform.io/arch, beta.platform.io/instance-type, beta.platform.io/os, failure-domain.beta.platform.io/region, ' +
  'failure-domain.beta.platform.io/zone, node.platform.io/instance-type, platform.io/arch, platform.io/hostname, platform.io/os, ' +
  'topology.platform.io/region, topology.platform.io/zone)';

describe('parseNodeLabels', () => {
  it.each([
    ['', {}],
    ['a=1', { a: '1' }],
    ['a=1,b', { a: '1', b: '' }],
    [' a = 1 ,,b=x=y', { a: '1', b: 'x=y' }],
    ['a=1,a=2', { a: '2' }],
  ])('parses %j', (text, labels) => {
    expect(parseNodeLabels(text)).toEqual(labels);
  });
});

describe('validateNodeLabels', () => {
  it.each([
    [{ 'platform.io/hostname': 'n1' }],
    [{ 'platform.io/os': 'linux', 'platform.io/arch': 'amd64' }],
    [{ 'topology.platform.io/zone': 'z1', 'failure-domain.beta.platform.io/region': 'r' }],
    [{ 'node.platform.io/instance-type': 'm5' }],
    [{ 'agent.platform.io/anything': 'x' }],
    [{ 'sub.agent.platform.io/anything': 'x' }],
    [{ 'node.platform.io/custom': 'x' }],
    [{ 'a.b.node.platform.io/custom': '' }],
    [{ 'example.com/role': 'db', plain: 'x' }],
    [{ 'notplatform.io/x': 'y' }],
  ])('accepts %j', (labels) => {
    expect(validateNodeLabels(labels)).toEqual([]);
  });

  it.each([
    [{ 'node-role.platform.io/master': '' }, [`unknown 'platform.io' labels [node-role.platform.io/master]${RESERVED_SUFFIX}`]],
    [{ 'platform.io/role': 'x', 'foo.platform.io/a': 'b' }, [`unknown 'platform.io' labels [foo.platform.io/a, platform.io/role]${RESERVED_SUFFIX}`]],
    [{ 'agent.platform.io.evil.com/x': 'y' }, []],
  ])('checks the reserved namespace for %j', (labels, problems) => {
    expect(validateNodeLabels(labels)).toEqual(problems);
  });

  it.each([
    [{ 'bad key': 'v' }, 'invalid label key "bad key": name part must consist of alphanumeric'],
    [{ k: 'bad value' }, 'invalid value "bad value" of label "k": a valid label value must be an empty string'],
    [{ k: 'v'.repeat(64) }, 'must be no more than 63 characters'],
    [{ 'Example.com/k': 'v' }, 'invalid label key "Example.com/k": prefix part a lowercase RFC 1123 subdomain'],
  ])('rejects bad syntax in %j', (labels, message) => {
    const problems = validateNodeLabels(labels);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(message);
  });

  it.each([
    ['platform.io/hostname', true],
    ['agent.platform.io/x', true],
    ['x.node.platform.io/y', true],
    ['platform.io/foo', false],
    ['node-role.platform.io/worker', false],
  ])('isAgentLabel(%j) is %s', (key, allowed) => {
    expect(isAgentLabel(key)).toBe(allowed);
  });
});
