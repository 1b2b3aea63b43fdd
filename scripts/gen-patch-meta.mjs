#!/usr/bin/env node
// Generates src/api/patch/patch-meta.generated.ts: the strategic-merge-patch
// metadata (`+patchStrategy` / `+patchMergeKey` from the field comments of the
// upstream protos) for the kinds platform-apiserver serves, plus the message
// type of every field that leads to such metadata, so the patch engine can
// walk an object. Run: node scripts/gen-patch-meta.mjs [protoDir] [--check]
// The output is committed; --check exits 1 when it is stale.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const check = args.includes('--check');
const dir = args.find((a) => !a.startsWith('--')) ?? '/work/shared/reference/api';
const OUT = new URL('../src/api/patch/patch-meta.generated.ts', import.meta.url);

// The served kinds: apiVersion (renamed groups) -> upstream proto message.
const KINDS = {
  'v1/Namespace': 'k8s.io.api.core.v1.Namespace',
  'v1/Pod': 'k8s.io.api.core.v1.Pod',
  'v1/Binding': 'k8s.io.api.core.v1.Binding',
  'v1/Node': 'k8s.io.api.core.v1.Node',
  'v1/Event': 'k8s.io.api.core.v1.Event',
  'v1/ConfigMap': 'k8s.io.api.core.v1.ConfigMap',
  'v1/Secret': 'k8s.io.api.core.v1.Secret',
  'v1/ServiceAccount': 'k8s.io.api.core.v1.ServiceAccount',
  'coordination.platform.io/v1/Lease': 'k8s.io.api.coordination.v1.Lease',
  'certificates.platform.io/v1alpha1/ClusterTrustBundle': 'k8s.io.api.certificates.v1alpha1.ClusterTrustBundle',
  'certificates.platform.io/v1/CertificateSigningRequest': 'k8s.io.api.certificates.v1.CertificateSigningRequest',
  'authentication.platform.io/v1/TokenReview': 'k8s.io.api.authentication.v1.TokenReview',
  'authentication.platform.io/v1/TokenRequest': 'k8s.io.api.authentication.v1.TokenRequest',
  'authorization.platform.io/v1/SubjectAccessReview': 'k8s.io.api.authorization.v1.SubjectAccessReview',
};

/** message full name -> { field -> { type?, strategy?, mergeKey? } } */
function parseProtos(files) {
  const messages = new Map();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    let pkg = '';
    let current;
    let comments = [];
    for (const raw of text.split('\n')) {
      const line = raw.trim();
      const p = /^package ([\w.]+);/.exec(line);
      if (p) pkg = p[1];
      const m = /^message (\w+) \{/.exec(line);
      if (m) {
        current = new Map();
        messages.set(`${pkg}.${m[1]}`, current);
        comments = [];
        continue;
      }
      if (line.startsWith('//')) {
        comments.push(line);
        continue;
      }
      const f = /^(?:optional|repeated)\s+([\w.]+)\s+(\w+)\s*=\s*\d+;/.exec(line) ?? /^map<\s*\w+\s*,\s*([\w.]+)\s*>\s+(\w+)\s*=\s*\d+;/.exec(line);
      if (f && current) {
        const [, type, name] = f;
        const meta = {};
        if (/^[A-Z]/.test(type.split('.').at(-1)) && !/^(string|bytes|bool|int32|int64|double|float)$/.test(type)) meta.type = type.includes('.') ? type : `${pkg}.${type}`;
        for (const c of comments) {
          const s = /\+patchStrategy=([\w,]+)/.exec(c);
          if (s) meta.strategy = s[1];
          const k = /\+patchMergeKey=(\w+)/.exec(c);
          if (k) meta.mergeKey = k[1];
        }
        current.set(name, meta);
      }
      if (line === '' || line === '}' || f) comments = [];
    }
  }
  return messages;
}

// Go structs embedded with `json:",inline"`: in JSON their fields sit in the
// parent, but the protos show them as one field. Nothing in the proto marks
// them, so they are listed here (message -> proto field).
const INLINE = {
  'k8s.io.api.core.v1.Volume': 'volumeSource',
  'k8s.io.api.core.v1.EphemeralContainer': 'ephemeralContainerCommon',
  'k8s.io.api.core.v1.Probe': 'handler',
  'k8s.io.api.core.v1.PersistentVolumeSpec': 'persistentVolumeSource',
};

const files = readdirSync(dir).filter((f) => f.endsWith('_generated.proto')).map((f) => join(dir, f));
const messages = parseProtos(files);
for (const [msg, field] of Object.entries(INLINE)) {
  const fields = messages.get(msg);
  const inlined = fields?.get(field)?.type;
  if (!fields || !inlined || !messages.has(inlined)) throw new Error(`inline field ${msg}.${field} not found`);
  fields.delete(field);
  for (const [k, v] of messages.get(inlined)) fields.set(k, v);
}

// Keep a message only when some field below it carries patch metadata.
const memo = new Map();
function relevant(name, stack = new Set()) {
  if (memo.has(name)) return memo.get(name);
  if (stack.has(name)) return false;
  stack.add(name);
  const fields = messages.get(name);
  let r = false;
  for (const [, meta] of fields ?? []) if (meta.strategy || (meta.type && relevant(meta.type, stack))) r = true;
  stack.delete(name);
  memo.set(name, r);
  return r;
}

const short = (full) => full.replace(/^k8s\.io\.api\./, '').replace(/^k8s\.io\.apimachinery\.pkg\.apis\./, '');
const keep = new Set();
const visit = (name) => {
  if (keep.has(name) || !relevant(name)) return;
  keep.add(name);
  for (const [, meta] of messages.get(name)) if (meta.type) visit(meta.type);
};
for (const m of Object.values(KINDS)) {
  if (!messages.has(m)) throw new Error(`no message ${m} in ${dir}`);
  visit(m);
}

const lines = [];
for (const name of [...keep].sort((a, b) => short(a).localeCompare(short(b)))) {
  const entries = [];
  for (const [field, meta] of messages.get(name)) {
    const t = meta.type && keep.has(meta.type) ? short(meta.type) : undefined;
    if (!t && !meta.strategy) continue;
    const parts = [];
    if (t) parts.push(`t: '${t}'`);
    if (meta.strategy) parts.push(`s: '${meta.strategy}'`);
    if (meta.mergeKey) parts.push(`k: '${meta.mergeKey}'`);
    entries.push(`${field}: { ${parts.join(', ')} }`);
  }
  lines.push(`  '${short(name)}': { ${entries.join(', ')} },`);
}

// Any other object kind (RBAC has no reference protos here, and no patch tags
// of its own): only its ObjectMeta (finalizers, ownerReferences) is typed.
lines.push(`  '*': { metadata: { t: 'meta.v1.ObjectMeta' } },`);

const out = `// GENERATED by scripts/gen-patch-meta.mjs from the upstream protos in
// shared/reference/api (v0.28.15) — do not edit; rerun the script.
// Strategic-merge-patch metadata per message: t = the field's message type
// (only where metadata lies below it), s = +patchStrategy, k = +patchMergeKey.
import type { PatchMessages } from './patch-meta.js';

export const PATCH_MESSAGES: PatchMessages = {
${lines.join('\n')}
};

/** \`<apiVersion>/<kind>\` of each served kind -> its message ('*': any other object). */
export const KIND_MESSAGES: Readonly<Record<string, string>> = {
${Object.entries(KINDS)
  .map(([k, v]) => `  '${k}': '${short(v)}',`)
  .join('\n')}
};
`;

if (check) {
  const cur = readFileSync(OUT, 'utf8');
  if (cur !== out) {
    console.error('src/api/patch/patch-meta.generated.ts is stale: run node scripts/gen-patch-meta.mjs');
    process.exit(1);
  }
} else {
  writeFileSync(OUT, out);
  console.log(`wrote ${lines.length} messages`);
}
