// proto/platform is wire-compatible with upstream: every message and field it
// declares has upstream's name, number, type and label (compared with the
// saved reference files when present, as test/unit/cri/proto.test.ts does for
// CRI); rbac/v1 and policy/v1, not in the references, against the numbers
// read from kubernetes/api.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { API_PROTO_FILES, findApiProtoDir } from '../../../../src/api/codec/load.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
const REFERENCE_DIR = process.env['API_REFERENCE_DIR'] ?? '/work/shared/reference/api';
const REFERENCE_FILES = [
  'api_core_v1_generated.proto',
  'api_authentication_v1_generated.proto',
  'api_authorization_v1_generated.proto',
  'api_certificates_v1_generated.proto',
  'api_certificates_v1alpha1_generated.proto',
  'api_coordination_v1_generated.proto',
  'apimachinery_pkg_api_resource_generated.proto',
  'apimachinery_pkg_apis_meta_v1_generated.proto',
  'apimachinery_pkg_runtime_generated.proto',
  'apimachinery_pkg_util_intstr_generated.proto',
];

function parseInto(root: protobuf.Root, file: string): protobuf.Root {
  protobuf.parse(readFileSync(file, 'utf8'), root, { keepCase: true });
  return root;
}

function ours(): protobuf.Root {
  const root = new protobuf.Root();
  const dir = findApiProtoDir(join(REPO, 'src', 'api', 'codec'));
  for (const f of API_PROTO_FILES) parseInto(root, join(dir, f));
  root.resolveAll();
  return root;
}

function types(ns: protobuf.NamespaceBase, out: protobuf.Type[] = []): protobuf.Type[] {
  for (const o of ns.nestedArray) {
    if (o instanceof protobuf.Type) out.push(o);
    else if (o instanceof protobuf.Namespace) types(o, out);
  }
  return out;
}

const upstreamName = (full: string): string => full.replace(/^\.?platform\.io\./, 'k8s.io.');

/** A field as `<label> <type> = <id>`, types by upstream full name. */
function describeField(t: protobuf.Type, f: protobuf.Field, root: protobuf.Root): string {
  let type = f.type;
  const target = t.parent?.lookup(f.type) ?? root.lookup(f.type);
  if (target instanceof protobuf.Type) type = upstreamName(target.fullName.slice(1));
  const label = f instanceof protobuf.MapField ? `map<${f.keyType}>` : f.repeated ? 'repeated' : 'optional';
  return `${label} ${type} = ${f.id}`;
}

describe('proto/platform', () => {
  it('is found from src/ and parses with every type resolved', () => {
    expect(findApiProtoDir(join(REPO, 'src', 'api', 'codec'))).toBe(join(REPO, 'proto'));
    expect(types(ours()).length).toBeGreaterThan(190);
  });

  it.runIf(existsSync(join(REFERENCE_DIR, REFERENCE_FILES[0] as string)))('declares every message and field exactly as the upstream reference does', () => {
    const ref = new protobuf.Root();
    for (const f of REFERENCE_FILES) parseInto(ref, join(REFERENCE_DIR, f));
    const ref129 = parseInto(new protobuf.Root(), join(REFERENCE_DIR, 'api_core_v1_generated.v1.29.proto'));
    const root = ours();
    const problems: string[] = [];
    let fields = 0;
    for (const t of types(root)) {
      const name = upstreamName(t.fullName.slice(1));
      if (name.startsWith('k8s.io.api.rbac.') || name.startsWith('k8s.io.api.policy.')) continue;
      const rt = (ref.lookup(name) ?? ref129.lookup(name)) as protobuf.Type | null;
      if (!(rt instanceof protobuf.Type)) {
        problems.push(`${name}: not in the reference`);
        continue;
      }
      for (const f of t.fieldsArray) {
        fields++;
        const rf = rt.fields[f.name] ?? (ref129.lookup(name) as protobuf.Type | null)?.fields[f.name];
        if (rf === undefined) {
          problems.push(`${name}.${f.name}: no such field in the reference`);
          continue;
        }
        const a = describeField(t, f, root);
        const b = describeField(rf.parent as protobuf.Type, rf, rf.root);
        if (a !== b) problems.push(`${name}.${f.name}: ours ${a}, reference ${b}`);
      }
    }
    expect(problems).toEqual([]);
    expect(fields).toBeGreaterThan(800);
  });

  it('includes VolumeProjection.clusterTrustBundle = 5 (the 1.29 projected source)', () => {
    const vp = ours().lookupType('platform.io.api.core.v1.VolumeProjection');
    expect(vp.fields['clusterTrustBundle']?.id).toBe(5);
    expect(vp.fields['clusterTrustBundle']?.resolvedType?.name).toBe('ClusterTrustBundleProjection');
  });

  // Read from kubernetes/api rbac/v1/generated.proto and policy/v1/generated.proto.
  const UPSTREAM_NOT_SAVED: Record<string, string[]> = {
    'rbac.v1.AggregationRule': ['repeated k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector clusterRoleSelectors = 1'],
    'rbac.v1.ClusterRole': ['optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1', 'repeated k8s.io.api.rbac.v1.PolicyRule rules = 2', 'optional k8s.io.api.rbac.v1.AggregationRule aggregationRule = 3'],
    'rbac.v1.ClusterRoleBinding': ['optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1', 'repeated k8s.io.api.rbac.v1.Subject subjects = 2', 'optional k8s.io.api.rbac.v1.RoleRef roleRef = 3'],
    'rbac.v1.ClusterRoleBindingList': ['optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1', 'repeated k8s.io.api.rbac.v1.ClusterRoleBinding items = 2'],
    'rbac.v1.ClusterRoleList': ['optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1', 'repeated k8s.io.api.rbac.v1.ClusterRole items = 2'],
    'rbac.v1.PolicyRule': ['repeated string verbs = 1', 'repeated string apiGroups = 2', 'repeated string resources = 3', 'repeated string resourceNames = 4', 'repeated string nonResourceURLs = 5'],
    'rbac.v1.Role': ['optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1', 'repeated k8s.io.api.rbac.v1.PolicyRule rules = 2'],
    'rbac.v1.RoleBinding': ['optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1', 'repeated k8s.io.api.rbac.v1.Subject subjects = 2', 'optional k8s.io.api.rbac.v1.RoleRef roleRef = 3'],
    'rbac.v1.RoleBindingList': ['optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1', 'repeated k8s.io.api.rbac.v1.RoleBinding items = 2'],
    'rbac.v1.RoleList': ['optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1', 'repeated k8s.io.api.rbac.v1.Role items = 2'],
    'rbac.v1.RoleRef': ['optional string apiGroup = 1', 'optional string kind = 2', 'optional string name = 3'],
    'rbac.v1.Subject': ['optional string kind = 1', 'optional string apiGroup = 2', 'optional string name = 3', 'optional string namespace = 4'],
    'policy.v1.Eviction': ['optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1', 'optional k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions deleteOptions = 2'],
  };

  it.each(Object.entries(UPSTREAM_NOT_SAVED))('%s has upstream fields', (name, expected) => {
    const root = ours();
    const t = root.lookupType(`platform.io.api.${name}`);
    expect(t.fieldsArray.map((f) => describeField(t, f, root).replace(/ = /, ` ${f.name} = `))).toEqual(expected);
  });
});
