// The pod's volumes and its containers' volume mounts, as the API server's
// ValidateVolumes and ValidateVolumeMounts check them. Pure; every problem
// names its field (spec.volumes[1].hostPath.type, ...).
import type { PodSpec, Volume, VolumeMount } from './pod-types.js';
import { checkLabel, checkLocalDescendingPath, quantityValue, quote, type Report } from './pod-validate-util.js';

const HOST_PATH_TYPES = new Set(['', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice']);
/** The fields a downward API volume file may carry (validVolumeDownwardAPIFieldPathExpressions). */
const VOLUME_FIELD_PATHS = ['metadata.name', 'metadata.namespace', 'metadata.labels', 'metadata.annotations', 'metadata.uid'];
const SUBSCRIPTED_FIELD_PATH = /^metadata\.(labels|annotations)\['(.+)'\]$/s;
const RESOURCES = ['limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage'];
const MAX_FILE_MODE = 0o777;
const FILE_MODE_MESSAGE = 'must be a number between 0 and 0777 (octal), both inclusive';

/** The sources a volume gives, by the API's key names (hostPath, emptyDir, configMap, ...). */
export function volumeSources(v: Volume): string[] {
  const own = (['hostPath', 'emptyDir', 'downwardAPI'] as const).filter((k) => v[k] !== undefined);
  return [...own, ...(v.otherSources ?? [])];
}

function checkMode(mode: number | undefined, field: string, report: Report): void {
  if (mode !== undefined && (mode < 0 || mode > MAX_FILE_MODE)) report(field, `${FILE_MODE_MESSAGE}, got ${mode}`);
}

function validateDownwardAPI(d: NonNullable<Volume['downwardAPI']>, at: string, report: Report): void {
  checkMode(d.defaultMode, `${at}.defaultMode`, report);
  for (const [i, item] of (d.items ?? []).entries()) {
    const f = `${at}.items[${i}]`;
    if (item.path === '') report(`${f}.path`, 'required value');
    else {
      checkLocalDescendingPath(item.path, `${f}.path`, report);
      if (item.path.startsWith('..')) report(`${f}.path`, "must not start with '..'");
    }
    checkMode(item.mode, `${f}.mode`, report);
    if (item.fieldRef && item.resourceFieldRef) report(f, 'fieldRef and resourceFieldRef can not be specified simultaneously');
    else if (!item.fieldRef && !item.resourceFieldRef) report(f, 'one of fieldRef and resourceFieldRef is required');
    if (item.fieldRef) {
      const { apiVersion, fieldPath } = item.fieldRef;
      if (apiVersion !== undefined && apiVersion !== 'v1') report(`${f}.fieldRef.apiVersion`, `unsupported value ${quote(apiVersion)}: supported values: "v1"`);
      if (!VOLUME_FIELD_PATHS.includes(fieldPath) && !SUBSCRIPTED_FIELD_PATH.test(fieldPath)) {
        report(`${f}.fieldRef.fieldPath`, `unsupported value ${quote(fieldPath)}: supported values: ${VOLUME_FIELD_PATHS.map((p) => `"${p}"`).join(', ')}, "metadata.labels['<key>']", "metadata.annotations['<key>']"`);
      }
    }
    const ref = item.resourceFieldRef;
    if (ref) {
      if ((ref.containerName ?? '') === '') report(`${f}.resourceFieldRef.containerName`, 'required value');
      if (!RESOURCES.includes(ref.resource) && !/^(limits|requests)\.hugepages-/.test(ref.resource)) report(`${f}.resourceFieldRef.resource`, `unsupported value ${quote(ref.resource)}: supported values: ${RESOURCES.map((r) => `"${r}"`).join(', ')}`);
      if (ref.divisor !== undefined) {
        const q = quantityValue(ref.divisor);
        if (!q.ok) report(`${f}.resourceFieldRef.divisor`, q.message);
        else if (q.value <= 0) report(`${f}.resourceFieldRef.divisor`, `must be greater than 0, got ${quote(ref.divisor)}`);
      }
    }
  }
}

function validateEmptyDir(e: NonNullable<Volume['emptyDir']>, at: string, report: Report): void {
  const medium = e.medium ?? '';
  if (medium.startsWith('HugePages')) report(`${at}.medium`, `unsupported value ${quote(medium)}: huge pages are not served by this agent; supported values: "", "Memory"`);
  else if (medium !== '' && medium !== 'Memory') report(`${at}.medium`, `unsupported value ${quote(medium)}: supported values: "", "Memory"`);
  if (e.sizeLimit !== undefined) {
    const q = quantityValue(e.sizeLimit);
    if (!q.ok) report(`${at}.sizeLimit`, q.message);
    else if (q.value < 0) report(`${at}.sizeLimit`, `must be greater than or equal to 0, got ${quote(e.sizeLimit)}`);
  }
}

/** Volume names, sources and paths; returns the names for the mounts to refer to. */
export function validateVolumes(spec: PodSpec, report: Report): Set<string> {
  const names = new Set<string>();
  for (const [i, v] of (spec.volumes ?? []).entries()) {
    const at = `spec.volumes[${i}]`;
    checkLabel(v.name, `${at}.name`, report);
    if (names.has(v.name)) report(`${at}.name`, `duplicate volume name ${quote(v.name)}`);
    names.add(v.name);
    const sources = volumeSources(v);
    if (sources.length === 0) report(at, 'exactly one volume source must be given (must specify a volume type: hostPath, emptyDir, downwardAPI, ...)');
    else if (sources.length > 1) report(at, `exactly one volume source must be given (may not specify more than 1 volume type), got ${sources.join(', ')}`);
    if (v.hostPath) {
      if (v.hostPath.path === '') report(`${at}.hostPath.path`, 'required value');
      else if (!v.hostPath.path.startsWith('/')) report(`${at}.hostPath.path`, 'must be an absolute path');
      if (v.hostPath.path.split('/').includes('..')) report(`${at}.hostPath.path`, "must not contain '..'");
      const type = v.hostPath.type;
      if (type !== undefined && !HOST_PATH_TYPES.has(type)) report(`${at}.hostPath.type`, `unsupported value ${quote(type)}: supported values: ${[...HOST_PATH_TYPES].map((t) => `${quote(t)}`).join(', ')}`);
    }
    if (v.emptyDir) validateEmptyDir(v.emptyDir, `${at}.emptyDir`, report);
    if (v.downwardAPI) validateDownwardAPI(v.downwardAPI, `${at}.downwardAPI`, report);
  }
  return names;
}

/** A mount's subPath and subPathExpr (the rest of a mount is checked with the container's other mounts). */
export function validateSubPaths(m: VolumeMount, at: string, report: Report): void {
  if (m.subPath !== undefined && m.subPath !== '') checkLocalDescendingPath(m.subPath, `${at}.subPath`, report);
  if (m.subPathExpr !== undefined && m.subPathExpr !== '') {
    if (m.subPath !== undefined && m.subPath !== '') report(`${at}.subPathExpr`, 'subPathExpr and subPath are mutually exclusive');
    checkLocalDescendingPath(m.subPathExpr, `${at}.subPathExpr`, report);
  }
}
