// metadataMatcher: for selections over labels, metadata.name and
// metadata.namespace it decides exactly as the full matcher does, from the
// metadata alone; it declines (undefined) any selection needing more.
import { describe, expect, it } from 'vitest';
import { parseFieldSelector } from '../../../../src/api/field-selector.js';
import { parseLabelSelector } from '../../../../src/api/selectors.js';
import { selectionOf } from '../../../../src/apiserver/handlers/read.js';
import { matcher, metadataMatcher } from '../../../../src/apiserver/registry/selection.js';
import { pods } from '../../../../src/apiserver/registry/resources/pods.js';
import type { ApiObject } from '../../../../src/apiserver/registry/types.js';

const OBJECTS: readonly ApiObject[] = [
  { metadata: { name: 'a', namespace: 'ns1', labels: { app: 'web', tier: 'fe' } }, spec: { nodeName: 'n1' } },
  { metadata: { name: 'b', namespace: 'ns2', labels: { app: 'db' } }, spec: { nodeName: 'n2' } },
  { metadata: { name: 'c', namespace: 'ns1' }, spec: {} },
  { metadata: {} },
];

describe('metadataMatcher', () => {
  it.each([
    ['app=web', ''],
    ['app!=web', ''],
    ['app in (web,db),!tier', ''],
    ['', 'metadata.name=a'],
    ['', 'metadata.namespace=ns1'],
    ['', 'metadata.name!=a,metadata.namespace=ns1'],
    ['app', 'metadata.namespace!=ns2'],
  ])('labels %j fields %j: the same answers as the full matcher', (labels, fields) => {
    const sel = selectionOf(parseLabelSelector(labels), parseFieldSelector(fields));
    const full = matcher(pods, sel);
    const byMeta = metadataMatcher(pods, sel);
    expect(full).toBeDefined();
    expect(byMeta).toBeDefined();
    expect(OBJECTS.map((o) => byMeta?.(o.metadata))).toEqual(OBJECTS.map((o) => full?.(o)));
  });

  it.each([
    ['a field of the spec', 'app=web', 'spec.nodeName=n1'],
    ['selects everything', '', ''],
  ])('declines when the selection %s', (_what, labels, fields) => {
    expect(metadataMatcher(pods, selectionOf(parseLabelSelector(labels), parseFieldSelector(fields)))).toBeUndefined();
  });
});
