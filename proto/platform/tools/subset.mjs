// Maintainer tool, not shipped behaviour: rewrites the API .proto files under
// proto/platform/ from the upstream reference files (REFERENCE_DIR, default
// /work/shared/reference/api) as declarations only: the messages reachable from
// the served kinds, upstream's field names, numbers, types and labels, our
// package names, no upstream comments. rbac/v1 and policy/v1 are not in the
// references and are kept by hand (see proto/README.md).
// Run: node proto/platform/tools/subset.mjs   (idempotent; rewrites the files)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const REF = process.env.REFERENCE_DIR ?? '/work/shared/reference/api';
const OUT = join(dirname(fileURLToPath(import.meta.url)), '..');
const FILES = {
  'k8s.io.api.core.v1': 'api_core_v1_generated.proto',
  'k8s.io.api.authentication.v1': 'api_authentication_v1_generated.proto',
  'k8s.io.api.authorization.v1': 'api_authorization_v1_generated.proto',
  'k8s.io.api.certificates.v1': 'api_certificates_v1_generated.proto',
  'k8s.io.api.certificates.v1alpha1': 'api_certificates_v1alpha1_generated.proto',
  'k8s.io.api.coordination.v1': 'api_coordination_v1_generated.proto',
  'k8s.io.apimachinery.pkg.api.resource': 'apimachinery_pkg_api_resource_generated.proto',
  'k8s.io.apimachinery.pkg.apis.meta.v1': 'apimachinery_pkg_apis_meta_v1_generated.proto',
  'k8s.io.apimachinery.pkg.runtime': 'apimachinery_pkg_runtime_generated.proto',
  'k8s.io.apimachinery.pkg.util.intstr': 'apimachinery_pkg_util_intstr_generated.proto',
};
const ROOTS = {
  'k8s.io.api.core.v1': ['Pod', 'PodList', 'Node', 'NodeList', 'Namespace', 'NamespaceList', 'Event', 'EventList', 'ConfigMap', 'ConfigMapList', 'Secret', 'SecretList', 'ServiceAccount', 'ServiceAccountList', 'Binding'],
  'k8s.io.api.coordination.v1': ['Lease', 'LeaseList'],
  'k8s.io.api.certificates.v1': ['CertificateSigningRequest', 'CertificateSigningRequestList'],
  'k8s.io.api.certificates.v1alpha1': ['ClusterTrustBundle', 'ClusterTrustBundleList'],
  'k8s.io.api.authentication.v1': ['TokenRequest', 'TokenReview'],
  'k8s.io.api.authorization.v1': ['SubjectAccessReview', 'SelfSubjectAccessReview', 'LocalSubjectAccessReview'],
  'k8s.io.apimachinery.pkg.apis.meta.v1': ['ObjectMeta', 'ListMeta', 'OwnerReference', 'ManagedFieldsEntry', 'FieldsV1', 'Time', 'MicroTime', 'Status', 'StatusDetails', 'StatusCause', 'WatchEvent', 'DeleteOptions', 'Preconditions', 'LabelSelector', 'LabelSelectorRequirement', 'APIVersions', 'APIGroupList', 'APIGroup', 'APIResourceList', 'APIResource', 'GroupVersionForDiscovery', 'ServerAddressByClientCIDR'],
  'k8s.io.apimachinery.pkg.runtime': ['Unknown', 'RawExtension', 'TypeMeta'],
  'k8s.io.apimachinery.pkg.util.intstr': ['IntOrString'],
  'k8s.io.apimachinery.pkg.api.resource': ['Quantity'],
};

function load(file) {
  const root = new protobuf.Root();
  protobuf.parse(readFileSync(join(REF, file), 'utf8'), root, { keepCase: true });
  return root;
}
const root = new protobuf.Root();
for (const file of Object.values(FILES)) protobuf.parse(readFileSync(join(REF, file), 'utf8'), root, { keepCase: true });
// 1.29 adds the projected ClusterTrustBundle source; everything else stays 1.28.
const v129 = load('api_core_v1_generated.v1.29.proto');
const ctbp = v129.lookupType('k8s.io.api.core.v1.ClusterTrustBundleProjection');
const core = root.lookup('k8s.io.api.core.v1');
core.add(protobuf.Type.fromJSON('ClusterTrustBundleProjection', ctbp.toJSON({ keepComments: false })));
const vp = root.lookupType('k8s.io.api.core.v1.VolumeProjection');
const ctbField = v129.lookupType('k8s.io.api.core.v1.VolumeProjection').fields['clusterTrustBundle'];
vp.add(new protobuf.Field('clusterTrustBundle', ctbField.id, ctbField.type, 'optional'));

const keep = new Set();
function visit(type) {
  if (keep.has(type.fullName)) return;
  keep.add(type.fullName);
  for (const f of type.fieldsArray) {
    const t = type.parent.lookup(f.type) ?? root.lookup(f.type);
    if (t instanceof protobuf.Type) visit(t);
  }
}
for (const [pkg, names] of Object.entries(ROOTS)) for (const n of names) visit(root.lookupType(`${pkg}.${n}`));

const rename = (full) => full.replace(/^\.?k8s\.io\./, 'platform.io.');
const pathOf = (pkg) => join('platform', ...pkg.replace(/^k8s\.io\./, '').split('.'), 'types.proto');

for (const pkg of Object.keys(FILES)) {
  const ns = root.lookup(pkg);
  const types = ns.nestedArray.filter((t) => t instanceof protobuf.Type && keep.has(t.fullName)).sort((a, b) => (a.name < b.name ? -1 : 1));
  if (types.length === 0) continue;
  const imports = new Set();
  const body = [];
  for (const t of types) {
    body.push(`message ${t.name} {`);
    for (const f of t.fieldsArray) {
      const target = t.parent.lookup(f.type) ?? root.lookup(f.type);
      let typeName = f.type;
      if (target instanceof protobuf.Type) {
        const tpkg = target.parent.fullName.slice(1);
        if (tpkg === pkg) typeName = target.name;
        else {
          typeName = '.' + rename(target.fullName.slice(1));
          imports.add(pathOf(tpkg));
        }
      }
      if (f instanceof protobuf.MapField) body.push(`  map<${f.keyType}, ${typeName}> ${f.name} = ${f.id};`);
      else body.push(`  ${f.repeated ? 'repeated' : 'optional'} ${typeName} ${f.name} = ${f.id};`);
    }
    body.push('}', '');
  }
  const head = [
    '// Written for this project from the upstream API definitions; wire-compatible',
    '// with them (same message and field names, numbers, types and labels). See',
    '// proto/README.md before editing. Regenerate with proto/platform/tools/subset.mjs.',
    'syntax = "proto2";',
    '',
    `package ${rename(pkg)};`,
    '',
    ...[...imports].sort().map((i) => `import "${i}";`),
    ...(imports.size > 0 ? [''] : []),
  ];
  const out = join(OUT, '..', pathOf(pkg));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, [...head, ...body].join('\n'));
  console.log(`${out}: ${types.length} messages`);
}
