// Manifest text → result: whatever the text holds, a result naming the problem, never an exception.
import { describe, expect, it } from 'vitest';
import { podFromFile, podsFromUrlBody } from '../../../src/sources/manifest.js';

const ctx = { node: 'n', source: 'file' as const, location: '/m/a.yaml', now: new Date('2026-11-22T00:00:00Z') };
const good = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: c\n    image: i:1\n';

/** A "billion laughs" document: nine aliases per level, six levels. */
const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]', ...'bcdef'.split('').map((l, i) => `${l}: &${l} [${Array(9).fill(`*${'abcdef'[i]}`).join(',')}]`)].join('\n');

describe('manifest parsing: each bad text is a result naming its problem', () => {
  it.each([
    ['an alias bomb, even under a field the decoder drops', `${good}x:\n${bomb.replace(/^/gm, '  ')}\n`, /YAML aliases expand the manifest to more than 100000 values/],
    ['more than 100 aliases', `${good}x:\n  a: &a 1\n  b: [${Array(101).fill('*a').join(',')}]\n`, /YAML aliases refused at line \d+, column \d+: more than 100 alias uses/],
    ['an unresolved alias', 'a: *undefined\n', /YAML alias without an anchor at line 1, column 5: unidentified alias "undefined"/],
    ['a file holding only a comment', '# nothing here\n', /the manifest holds no object \(only comments or document markers\)/],
    ['document markers only', '---\n...\n', /the manifest is empty \(null\)|holds no object/],
    ['whitespace', ' \n\t\n', /the manifest is empty/],
    ['a syntax error, with its line', 'apiVersion: v1\nkind: Pod\nmetadata: {name: web\n', /YAML syntax error at line 4, column 1: /],
    ['a bad indentation, with its line', 'apiVersion: v1\nkind: Pod\n  metadata: x\n', /YAML syntax error at line 3, column \d+: bad indentation/],
    ['duplicate keys', 'apiVersion: v1\napiVersion: v1\n', /YAML syntax error at line 2, column 1: duplicated mapping key/],
    ['deep nesting', `${'['.repeat(10_000)}${']'.repeat(10_000)}`, /\(root\)|nesting exceeded maxDepth/],
    ['deep block nesting', Array.from({ length: 5000 }, (_, i) => `${' '.repeat(i)}k:`).join('\n'), /nesting exceeded maxDepth/],
    ['deep JSON nesting', `{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`, /\(root\)|apiVersion|YAML/],
    ['two documents', `${good}---\n${good}`, /holds 2 YAML documents/],
    ['a scalar', 'hello\n', /\(root\)|apiVersion/],
    ['binary garbage', '\u0000\u0001\u00ff\ufffd{{{[[[', /YAML|root|apiVersion/],
  ])('%s', (_name, text, want) => {
    const r = podFromFile(text, ctx);
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.error).toMatch(want);
  });

  it('reads timestamps and YAML 1.1 booleans as strings (the core schema), as the API does', () => {
    const r = podFromFile(`${good}  annotations: {}\n`.replace('  name: web\n', '  name: web\n  labels: {day: "x"}\n  annotations: {since: 2001-12-14, ok: yes}\n'), ctx);
    expect(r.ok && r.pods[0]!.metadata.annotations).toMatchObject({ since: '2001-12-14', ok: 'yes' });
  });

  it('a huge bad value is clipped in the message, and at most ten problems are listed', () => {
    const name = 'X'.repeat(1_000_000);
    const r = podFromFile(JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'i' }] } }), ctx);
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.error.length).toBeLessThan(1000);
    const many = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: Array.from({ length: 30 }, () => ({ name: 'Bad_Name', image: 'i' })) } };
    const m = podFromFile(JSON.stringify(many), ctx);
    expect(m.ok ? '' : m.error).toMatch(/; and \d+ more problems$/);
  });

  it('a PodList body goes through the same checks', () => {
    const r = podsFromUrlBody('kind: PodList\nitems: *nowhere\n', { ...ctx, source: 'http', location: 'http://x' });
    expect(r.ok ? '' : r.error).toMatch(/alias without an anchor/);
  });

  it('JSON is read as JSON, and JSON that is not JSON falls back to YAML', () => {
    expect(podFromFile(JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'i:1' }] } }), ctx).ok).toBe(true);
    expect(podFromFile('{apiVersion: v1, kind: Pod, metadata: {name: web}, spec: {containers: [{name: c, image: "i:1"}]}}', ctx).ok).toBe(true);
  });
});

describe('manifest parsing with the SidecarContainers gate', () => {
  const sidecar = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { initContainers: [{ name: 'proxy', image: 'i:1', restartPolicy: 'Always' }], containers: [{ name: 'c', image: 'i:1' }] } });
  const base = { node: 'n1', source: 'file' as const, location: '/etc/pods/web.yaml', now: new Date(0) };
  it('refuses an init container restartPolicy while the gate is off, naming the field', () => {
    const r = podFromFile(sidecar, base);
    expect(r).toEqual({ ok: false, error: 'spec.initContainers[0].restartPolicy: may not be set: the SidecarContainers feature gate is disabled' });
    expect(podsFromUrlBody(sidecar, { ...base, source: 'http', location: 'http://127.0.0.1/pods' }).ok).toBe(false);
  });
  it('accepts it with the gate on', () => {
    expect(podFromFile(sidecar, { ...base, sidecars: true }).ok).toBe(true);
  });
});
