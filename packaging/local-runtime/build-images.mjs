#!/usr/bin/env node
// Builds the local OCI images the private containerd runs -- no network, no
// npm dependencies, deterministic: identical inputs give byte-identical
// archives and so identical digests.
//
//   node packaging/local-runtime/build-images.mjs [--out DIR] [--force] [--json]
//       Writes into DIR (default .tmp/images under the repository):
//         busybox.tar      localhost/busybox:latest
//         busybox-v2.tar   localhost/busybox:v2   (one extra file: another digest)
//         pause.tar        localhost/pause:3.9
//         all.tar          the three above in one archive (one `ctr images import`)
//         images.json      { key, images: { NAME: { file, ref, manifestDigest, configDigest, layerDigest, size } } }
//       Skips the work when DIR/images.json already records the same input key
//       (a hash of this script, pause.c, /bin/busybox, the gcc version and the
//       architecture). Every file is written to a temporary name and renamed,
//       so concurrent builders (parallel test files) are harmless.
//
//   node packaging/local-runtime/build-images.mjs --variant TAG --out FILE
//       Writes one busybox image localhost/busybox:TAG whose /etc/variant holds
//       TAG -- a distinct digest per TAG, for pull tests.
//
// Archive layout (what `ctr images import` and `skopeo copy oci-archive:` read):
// an uncompressed tar holding oci-layout, index.json (each manifest annotated
// with io.containerd.image.name and org.opencontainers.image.ref.name) and
// blobs/sha256/{layer tar, config, manifest}. The layer is an uncompressed
// ustar archive (mtime 0, uid/gid 0, sorted entries, symlinks as symlinks).
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '../..');
const BUSYBOX = '/bin/busybox';
const PAUSE_SRC = join(HERE, 'pause.c');

const MT = {
  index: 'application/vnd.oci.image.index.v1+json',
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layer: 'application/vnd.oci.image.layer.v1.tar',
};

const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');

// ---------------------------------------------------------------- tar (ustar)

// An entry: { path, type: 'dir' | 'file' | 'symlink', data?: Buffer, target?: string, mode?: number }.

function octal(n, width) {
  // width includes the terminating NUL
  const s = n.toString(8);
  if (s.length > width - 1) throw new Error(`tar: value ${n} does not fit`);
  return s.padStart(width - 1, '0') + '\0';
}

function splitName(path) {
  if (Buffer.byteLength(path) <= 100) return { name: path, prefix: '' };
  // ustar: prefix (<=155) + '/' + name (<=100)
  for (let i = path.length - 1; i > 0; i--) {
    if (path[i] !== '/') continue;
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100 && name.length > 0) return { name, prefix };
  }
  throw new Error(`tar: path too long: ${path}`);
}

function header(entry, size) {
  const h = Buffer.alloc(512, 0);
  const { name, prefix } = splitName(entry.type === 'dir' ? `${entry.path}/` : entry.path);
  const put = (off, len, str) => h.write(str, off, len, 'utf8');
  const typeflag = entry.type === 'file' ? '0' : entry.type === 'symlink' ? '2' : '5';
  const mode = entry.mode ?? (entry.type === 'dir' ? 0o755 : entry.type === 'symlink' ? 0o777 : 0o644);
  put(0, 100, name);
  put(100, 8, octal(mode, 8));
  put(108, 8, octal(0, 8)); // uid
  put(116, 8, octal(0, 8)); // gid
  put(124, 12, octal(size, 12));
  put(136, 12, octal(0, 12)); // mtime
  put(148, 8, '        '); // checksum placeholder (spaces)
  put(156, 1, typeflag);
  if (entry.type === 'symlink') {
    if (Buffer.byteLength(entry.target) > 100) throw new Error(`tar: link target too long: ${entry.target}`);
    put(157, 100, entry.target);
  }
  put(257, 6, 'ustar\0');
  put(263, 2, '00');
  put(265, 32, 'root');
  put(297, 32, 'root');
  put(329, 8, octal(0, 8)); // devmajor
  put(337, 8, octal(0, 8)); // devminor
  put(345, 155, prefix);
  let sum = 0;
  for (const b of h) sum += b;
  put(148, 8, octal(sum, 7) + ' ');
  return h;
}

/** A ustar archive of the entries, parent directories added, sorted by path. */
export function tar(entries) {
  const byPath = new Map();
  for (const e of entries) {
    const path = e.path.replace(/^\/+/, '').replace(/\/+$/, '');
    if (!path) continue;
    byPath.set(path, { ...e, path });
    // implicit parents
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const p = parts.slice(0, i).join('/');
      if (!byPath.has(p)) byPath.set(p, { path: p, type: 'dir' });
    }
  }
  const sorted = [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const chunks = [];
  for (const e of sorted) {
    const data = e.type === 'file' ? e.data : Buffer.alloc(0);
    chunks.push(header(e, data.length));
    if (data.length) {
      chunks.push(data);
      const pad = (512 - (data.length % 512)) % 512;
      if (pad) chunks.push(Buffer.alloc(pad, 0));
    }
  }
  chunks.push(Buffer.alloc(1024, 0)); // two zero blocks end the archive
  return Buffer.concat(chunks);
}

// ---------------------------------------------------------------- OCI images

export function goArch() {
  switch (process.arch) {
    case 'x64':
      return 'amd64';
    case 'arm64':
      return 'arm64';
    case 'arm':
      return 'arm';
    case 'ppc64':
      return 'ppc64le';
    case 's390x':
      return 's390x';
    case 'riscv64':
      return 'riscv64';
    default:
      return process.arch;
  }
}

/**
 * One image: its blobs (digest -> Buffer) and the descriptor of its manifest.
 * @param {{ name: string, layer: Buffer, cmd: string[], env?: string[], workingDir?: string }} spec
 */
export function image(spec) {
  const layerDigest = `sha256:${sha256(spec.layer)}`;
  const config = {
    architecture: goArch(),
    os: 'linux',
    config: {
      Env: spec.env ?? ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
      Cmd: spec.cmd,
      ...(spec.workingDir ? { WorkingDir: spec.workingDir } : {}),
    },
    created: '1970-01-01T00:00:00Z',
    history: [{ created: '1970-01-01T00:00:00Z', created_by: 'packaging/local-runtime/build-images.mjs' }],
    rootfs: { type: 'layers', diff_ids: [layerDigest] },
  };
  const configBuf = Buffer.from(JSON.stringify(config));
  const configDigest = `sha256:${sha256(configBuf)}`;
  const manifest = {
    schemaVersion: 2,
    mediaType: MT.manifest,
    config: { mediaType: MT.config, digest: configDigest, size: configBuf.length },
    layers: [{ mediaType: MT.layer, digest: layerDigest, size: spec.layer.length }],
  };
  const manifestBuf = Buffer.from(JSON.stringify(manifest));
  const manifestDigest = `sha256:${sha256(manifestBuf)}`;
  const tag = spec.name.slice(spec.name.lastIndexOf(':') + 1);
  return {
    name: spec.name,
    layerDigest,
    configDigest,
    manifestDigest,
    blobs: new Map([
      [layerDigest, spec.layer],
      [configDigest, configBuf],
      [manifestDigest, manifestBuf],
    ]),
    descriptor: {
      mediaType: MT.manifest,
      digest: manifestDigest,
      size: manifestBuf.length,
      annotations: {
        'io.containerd.image.name': spec.name,
        'org.opencontainers.image.ref.name': tag,
      },
      platform: { architecture: goArch(), os: 'linux' },
    },
  };
}

/** An OCI image-layout archive (uncompressed tar) holding the images. */
export function ociArchive(images) {
  const blobs = new Map();
  for (const img of images) for (const [d, b] of img.blobs) blobs.set(d, b);
  const index = { schemaVersion: 2, mediaType: MT.index, manifests: images.map((i) => i.descriptor) };
  const entries = [
    { path: 'oci-layout', type: 'file', data: Buffer.from(JSON.stringify({ imageLayoutVersion: '1.0.0' })) },
    { path: 'index.json', type: 'file', data: Buffer.from(JSON.stringify(index)) },
  ];
  for (const [d, b] of blobs) entries.push({ path: `blobs/sha256/${d.slice('sha256:'.length)}`, type: 'file', data: b });
  return tar(entries);
}

// ---------------------------------------------------------------- contents

function busyboxEntries(busybox, extra = []) {
  const list = execFileSync(BUSYBOX, ['--list-full'], { encoding: 'utf8' })
    .split('\n')
    .map((s) => s.trim())
    .filter((s) => s.includes('/') && s !== 'bin/busybox');
  const entries = [
    { path: 'bin/busybox', type: 'file', data: busybox, mode: 0o755 },
    ...list.map((p) => ({ path: p, type: 'symlink', target: '/bin/busybox' })),
    ...['bin', 'sbin', 'usr', 'usr/bin', 'usr/sbin', 'usr/local/bin', 'etc', 'dev', 'proc', 'sys', 'home', 'var', 'var/run', 'run'].map(
      (path) => ({ path, type: 'dir' }),
    ),
    { path: 'tmp', type: 'dir', mode: 0o1777 },
    { path: 'var/tmp', type: 'dir', mode: 0o1777 },
    { path: 'root', type: 'dir', mode: 0o700 },
    {
      path: 'etc/passwd',
      type: 'file',
      data: Buffer.from('root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n'),
    },
    { path: 'etc/group', type: 'file', data: Buffer.from('root:x:0:\nnobody:x:65534:\n') },
    ...extra,
  ];
  return entries;
}

export function busyboxImage(name, extra = []) {
  return image({ name, layer: tar(busyboxEntries(readFileSync(BUSYBOX), extra)), cmd: ['sh'] });
}

export function variantImage(tag) {
  return busyboxImage(`localhost/busybox:${tag}`, [
    { path: 'etc/variant', type: 'file', data: Buffer.from(`${tag}\n`) },
  ]);
}

function gccVersion() {
  try {
    return execFileSync('gcc', ['-dumpfullversion'], { encoding: 'utf8' }).trim();
  } catch {
    return 'none';
  }
}

/** Compiles pause.c statically; cached in cacheDir by source and compiler. */
function pauseBinary(cacheDir) {
  const key = sha256(Buffer.concat([readFileSync(PAUSE_SRC), Buffer.from(gccVersion())])).slice(0, 16);
  const bin = join(cacheDir, `pause-${key}`);
  if (existsSync(bin)) return readFileSync(bin);
  // Compile from a fixed working directory with a relative source name so
  // nothing path-dependent can reach the binary (it is stripped anyway).
  const work = join(cacheDir, `.pause-build-${process.pid}`);
  mkdirSync(work, { recursive: true });
  try {
    writeFileSync(join(work, 'pause.c'), readFileSync(PAUSE_SRC));
    execFileSync('gcc', ['-static', '-Os', '-s', '-Wall', '-o', 'pause', 'pause.c'], { cwd: work, stdio: ['ignore', 'ignore', 'inherit'] });
    renameSync(join(work, 'pause'), bin);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return readFileSync(bin);
}

export function pauseImage(cacheDir) {
  const layer = tar([{ path: 'pause', type: 'file', data: pauseBinary(cacheDir), mode: 0o755 }]);
  return image({ name: 'localhost/pause:3.9', layer, cmd: ['/pause'], env: ['PATH=/'] });
}

// ---------------------------------------------------------------- output

function writeAtomic(file, data) {
  const tmp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

export function inputKey() {
  const h = createHash('sha256');
  for (const f of [fileURLToPath(import.meta.url), PAUSE_SRC, BUSYBOX]) h.update(sha256(readFileSync(f)));
  h.update(gccVersion());
  h.update(goArch());
  return h.digest('hex');
}

function upToDate(outDir, key) {
  try {
    const prev = JSON.parse(readFileSync(join(outDir, 'images.json'), 'utf8'));
    if (prev.key === key && Object.values(prev.images).every((i) => existsSync(join(outDir, i.file)))) return prev;
  } catch {
    // missing or unreadable: rebuild
  }
  return undefined;
}

const sleepSync = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Builds the standard images into outDir unless already built from the same
 * inputs. Concurrent callers (parallel test files) take turns on a lock
 * directory, so a cold cache is built once and the others reuse it.
 */
export function buildImages(outDir, { force = false } = {}) {
  mkdirSync(outDir, { recursive: true });
  const key = inputKey();
  if (!force) {
    const prev = upToDate(outDir, key);
    if (prev) return { ...prev, cached: true };
  }
  const lock = join(outDir, '.build.lock');
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
    }
    // a builder that died leaves a stale lock: take it over after 60 s
    try {
      if (Date.now() - statSync(lock).mtimeMs > 60_000) rmSync(lock, { recursive: true, force: true });
    } catch {
      // released meanwhile
    }
    if (Date.now() > deadline) throw new Error(`build-images: ${lock} held for too long`);
    sleepSync(50);
    if (!force) {
      const prev = upToDate(outDir, key);
      if (prev) return { ...prev, cached: true };
    }
  }
  try {
    return buildLocked(outDir, key);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function buildLocked(outDir, key) {
  const images = {
    busybox: { img: busyboxImage('localhost/busybox:latest'), file: 'busybox.tar' },
    'busybox-v2': { img: variantImage('v2'), file: 'busybox-v2.tar' },
    pause: { img: pauseImage(outDir), file: 'pause.tar' },
  };
  const summary = { key, images: {} };
  for (const [id, { img, file }] of Object.entries(images)) {
    const data = ociArchive([img]);
    writeAtomic(join(outDir, file), data);
    summary.images[id] = {
      file,
      ref: img.name,
      manifestDigest: img.manifestDigest,
      configDigest: img.configDigest,
      layerDigest: img.layerDigest,
      size: data.length,
    };
  }
  writeAtomic(join(outDir, 'all.tar'), ociArchive(Object.values(images).map((i) => i.img)));
  writeAtomic(join(outDir, 'images.json'), `${JSON.stringify(summary, null, 2)}\n`);
  return { ...summary, cached: false };
}

// ---------------------------------------------------------------- CLI

function main(argv) {
  let out;
  let variant;
  let force = false;
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--out') out = argv[++i];
    else if (a.startsWith('--out=')) out = a.slice(6);
    else if (a === '--variant') variant = argv[++i];
    else if (a.startsWith('--variant=')) variant = a.slice(10);
    else if (a === '--force') force = true;
    else if (a === '--json') json = true;
    else if (a === '-h' || a === '--help') {
      process.stdout.write(
        'usage: build-images.mjs [--out DIR] [--force] [--json]\n       build-images.mjs --variant TAG --out FILE\n',
      );
      return 0;
    } else {
      process.stderr.write(`build-images: unknown argument ${a}\n`);
      return 2;
    }
  }
  if (variant !== undefined) {
    if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/.test(variant)) {
      process.stderr.write(`build-images: invalid tag ${variant}\n`);
      return 2;
    }
    if (!out) {
      process.stderr.write('build-images: --variant needs --out FILE\n');
      return 2;
    }
    const img = variantImage(variant);
    mkdirSync(dirname(resolve(out)), { recursive: true });
    writeAtomic(resolve(out), ociArchive([img]));
    const info = { file: resolve(out), ref: img.name, manifestDigest: img.manifestDigest, configDigest: img.configDigest };
    process.stdout.write(json ? `${JSON.stringify(info)}\n` : `${img.name} ${img.manifestDigest} ${info.file}\n`);
    return 0;
  }
  const dir = resolve(out ?? join(REPO, '.tmp/images'));
  const t0 = performance.now();
  const res = buildImages(dir, { force });
  const ms = Math.round(performance.now() - t0);
  if (json) process.stdout.write(`${JSON.stringify({ dir, ms, ...res })}\n`);
  else {
    for (const i of Object.values(res.images)) process.stdout.write(`${i.ref} ${i.manifestDigest} ${join(dir, i.file)}\n`);
    process.stderr.write(`build-images: ${res.cached ? 'up to date' : 'built'} in ${ms} ms (${dir})\n`);
  }
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
