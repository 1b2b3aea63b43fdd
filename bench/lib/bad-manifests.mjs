// Bad input for the agent's file source (bench/sources.mjs, load (a)): files
// and other directory entries that must never become a pod, each prepared in
// a staging directory on the same file system and later renamed into the
// watched directory, so the agent sees every regular file complete.
//
// None of them may decode to a valid pod: a bad file that turned into a pod
// would change the node under test. `check()` below proves it with the
// project's own decoder before a run.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GRACE_S, IMAGE } from './pod-manifest.mjs';

const MB = 1e6;

/** A pod that is valid but for what `change` does to it, as YAML text (JSON is YAML). */
function podText(name, change = () => {}) {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { hostNetwork: true, terminationGracePeriodSeconds: GRACE_S, containers: [{ name: 'c', image: IMAGE, command: ['sleep', '3600'] }] },
  };
  change(pod);
  return JSON.stringify(pod, null, 1);
}

/** A block sequence of short strings, about `bytes` bytes in all, indented by `indent`. */
function filler(bytes, indent) {
  const line = (i) => `${indent}- ${String(i).padStart(7, '0')}${'v'.repeat(45)}\n`;
  const n = Math.ceil(bytes / line(0).length);
  return Array.from({ length: n }, (_, i) => line(i)).join('');
}

/**
 * Also empties the image, which any validation refuses: a bad file must never
 * run, also where the agent does not check the rule a variant is about yet.
 */
function backstop(pod) {
  pod.spec.containers[0].image = '';
}

const billionLaughs = () => {
  const l = 'abcdefghi';
  const rows = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < l.length; i++) rows.push(`${l[i]}: &${l[i]} [${Array(9).fill(`*${l[i - 1]}`).join(',')}]`);
  return `${rows.join('\n')}\n`;
};

/**
 * The kinds, cycled through in this order. `text(i)` makes a regular file;
 * `make(path)` makes any other entry (it must work on a path that does not
 * exist yet). `variants` are the sub-cases a kind rotates through.
 */
export const BAD_KINDS = [
  { kind: 'yaml-syntax', text: (i) => `apiVersion: v1\nkind: Pod\nmetadata:\n  name: [bad-${i}\n  labels: {a: b\nspec: : :\n\t- tab\n` },
  { kind: 'alias-bomb', text: () => billionLaughs() },
  { kind: 'unresolved-alias', text: () => 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: *nowhere\nspec: *missing\n' },
  { kind: 'comment-only', text: () => '# a manifest with nothing in it\n# (an editor left it here)\n' },
  { kind: 'empty', text: () => '' },
  // An unclosed flow sequence of ~1.2 MB: the parser reads all of it before it fails.
  { kind: 'malformed-1.2MB', text: () => `apiVersion: v1\nkind: Pod\nmetadata:\n  name: big\n  labels: [${'"aaaaaaaaaaaaaaaaaaaa", '.repeat(Math.ceil((1.2 * MB) / 24))}\n` },
  {
    kind: 'invalid-pod-5MB',
    variants: ['unknown-fields', 'many-bad-containers'],
    text: (i, v) =>
      v === 'unknown-fields'
        ? // Valid YAML, dropped fields, and a name the validation refuses.
          `apiVersion: v1\nkind: Pod\nmetadata:\n  name: Bad_Name_${i}\n  padding:\n${filler(5 * MB, '    ')}spec:\n  containers:\n  - name: c\n    image: ${IMAGE}\n`
        : // Valid YAML, ~2 300 containers with long arguments, every one invalid: the error lists them all.
          `apiVersion: v1\nkind: Pod\nmetadata:\n  name: many-${i}\nspec:\n  containers:\n${`  - name: Not_A_Label\n    image: ""\n    args: [${Array(10).fill(`"${'x'.repeat(200)}"`).join(', ')}]\n`.repeat(Math.ceil((5 * MB) / 2150))}`,
  },
  {
    kind: 'invalid-pod',
    variants: ['bad-name', 'bad-sysctl', 'probe-without-handler', 'annotation-300KiB', 'wrong-kind', 'two-documents', 'deep-nesting'],
    text: (i, v) => {
      switch (v) {
        case 'bad-name':
          return podText(`Bad_Name_${i}.`);
        case 'bad-sysctl':
          return podText(`sysctl-${i}`, (p) => backstop(p, (p.spec.securityContext = { sysctls: [{ name: 'not a sysctl!', value: '1' }, { name: '', value: '' }] })));
        case 'probe-without-handler':
          return podText(`probe-${i}`, (p) => backstop(p, (p.spec.containers[0].livenessProbe = { periodSeconds: 1, failureThreshold: 1 })));
        case 'annotation-300KiB':
          // Over the API's 256 KiB limit on all annotations of a pod.
          return podText(`annot-${i}`, (p) => backstop(p, (p.metadata.annotations = { 'bench.platform.io/huge': 'a'.repeat(300 * 1024) })));
        case 'wrong-kind':
          return podText(`kind-${i}`, (p) => (p.kind = 'Deployment'));
        case 'two-documents':
          return `${podText(`two-a-${i}`)}\n---\n${podText(`two-b-${i}`)}\n`;
        default:
          return `${'['.repeat(5000)}${']'.repeat(5000)}\n`;
      }
    },
  },
  { kind: 'symlink-loop', make: (p) => symlinkSync(p.slice(p.lastIndexOf('/') + 1), p) },
  { kind: 'fifo', make: (p) => execFileSync('mkfifo', [p], { stdio: 'ignore', timeout: 10_000 }) },
  {
    kind: 'directory',
    make: (p) => {
      mkdirSync(p);
      writeFileSync(join(p, 'inside.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: [\n');
    },
  },
  { kind: 'binary', text: () => randomBytes(64 * 1024) },
];

/** The i-th bad entry: its kind, variant and file name (unique, sorted apart from the real manifests). */
export function badEntry(i) {
  const k = BAD_KINDS[i % BAD_KINDS.length];
  const round = Math.floor(i / BAD_KINDS.length);
  const variant = k.variants ? k.variants[round % k.variants.length] : undefined;
  const name = `bad-${String(i).padStart(3, '0')}-${variant ?? k.kind}${k.kind === 'directory' ? '.d' : '.yaml'}`;
  return { index: i, kind: k.kind, variant, name, def: k };
}

/**
 * Creates `count` bad entries in `staging`; returns them with their size.
 * Large texts are made once per kind and variant and written again for each file.
 */
export function prepareBadEntries(staging, count) {
  mkdirSync(staging, { recursive: true });
  const cache = new Map();
  const out = [];
  for (let i = 0; i < count; i++) {
    const e = badEntry(i);
    const path = join(staging, e.name);
    rmSync(path, { recursive: true, force: true });
    let bytes = 0;
    if (e.def.make) e.def.make(path);
    else {
      const key = `${e.kind}/${e.variant}`;
      // Small texts name their file; the big ones are the same for every file of their kind.
      const big = e.kind === 'malformed-1.2MB' || e.kind === 'invalid-pod-5MB';
      let text = big ? cache.get(key) : undefined;
      if (text === undefined) {
        text = e.def.text(i, e.variant);
        if (big) cache.set(key, text);
      }
      writeFileSync(path, text);
      bytes = Buffer.byteLength(text);
    }
    out.push({ index: i, kind: e.kind, variant: e.variant ?? null, name: e.name, staged: path, bytes });
  }
  return out;
}

/**
 * Proves with the project's decoder (`podFromFile` of dist/sources/manifest.js)
 * that no regular bad file is a valid pod; returns the error each one gets.
 */
export function checkBadTexts(podFromFile, node) {
  const errors = {};
  for (let i = 0; i < BAD_KINDS.length * 7; i++) {
    const e = badEntry(i);
    if (e.def.make || e.def.kind === 'invalid-pod-5MB') continue; // the 5 MB ones take seconds: their refusal is in the agent's log
    const t = e.def.text(i, e.variant);
    let res;
    try {
      res = podFromFile(typeof t === 'string' ? t : t.toString('utf8'), { node, source: 'file', location: `/check/${e.name}`, now: new Date() });
    } catch (err) {
      // A decoder that throws instead of answering is the agent's problem to fix, not a pod.
      res = { ok: false, error: `THROWS ${err?.name}: ${err?.message}` };
    }
    if (res.ok) throw new Error(`bad manifest ${e.name} decodes to a valid pod`);
    errors[`${e.kind}${e.variant ? `/${e.variant}` : ''}`] = res.error.slice(0, 160);
  }
  return errors;
}
