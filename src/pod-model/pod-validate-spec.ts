// Pod-spec rules outside the containers, as the API server's ValidatePodSpec
// applies them: tolerations, DNS config, host aliases, node selector.
import type { PodSpec } from './pod-types.js';
import { isLabelValue, isQualifiedName } from '../config/values/names.js';
import { checkLabel, checkSubdomain, isDns1123Subdomain, isIpAddress, quote, short, type Report } from './pod-validate-util.js';

const TAINT_EFFECTS = new Set(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);
const MAX_DNS_NAMESERVERS = 3;
const MAX_DNS_SEARCH_PATHS = 32;
const MAX_DNS_SEARCH_LIST_CHARS = 2048;

export function validateTolerations(spec: PodSpec, report: Report): void {
  for (const [i, t] of (spec.tolerations ?? []).entries()) {
    const at = `spec.tolerations[${i}]`;
    const key = t.key ?? '';
    const value = t.value ?? '';
    if (key !== '') {
      const bad = isQualifiedName(key);
      if (bad !== undefined) report(`${at}.key`, `${quote(key)}: ${bad}`);
    } else if (t.operator !== 'Exists') report(`${at}.operator`, 'must be Exists when key is empty (which means "match all values and all keys")');
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') report(`${at}.effect`, 'must be NoExecute when tolerationSeconds is set');
    if (t.operator === 'Exists') {
      if (value !== '') report(`${at}.operator`, 'value must be empty when operator is Exists');
    } else {
      const bad = isLabelValue(value);
      if (bad !== undefined) report(`${at}.value`, `${quote(value)}: ${bad}`);
    }
    if (t.effect !== undefined && t.effect !== '' && !TAINT_EFFECTS.has(t.effect)) report(`${at}.effect`, `unsupported value ${quote(t.effect)}: supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`);
  }
}

export function validateDns(spec: PodSpec, report: Report): void {
  const cfg = spec.dnsConfig;
  const nameservers = cfg?.nameservers ?? [];
  if (spec.dnsPolicy === 'None' && nameservers.length === 0) report('spec.dnsConfig.nameservers', 'at least one nameserver is required when dnsPolicy is None');
  if (cfg === undefined) return;
  if (nameservers.length > MAX_DNS_NAMESERVERS) report('spec.dnsConfig.nameservers', `must not have more than ${MAX_DNS_NAMESERVERS} nameservers, got ${nameservers.length}`);
  for (const [i, ns] of nameservers.entries()) {
    if (!isIpAddress(ns)) report(`spec.dnsConfig.nameservers[${i}]`, `${quote(ns)} must be a valid IP address`);
  }
  const searches = cfg.searches ?? [];
  if (searches.length > MAX_DNS_SEARCH_PATHS) report('spec.dnsConfig.searches', `must not have more than ${MAX_DNS_SEARCH_PATHS} search paths, got ${searches.length}`);
  const chars = searches.join(' ').length;
  if (chars > MAX_DNS_SEARCH_LIST_CHARS) report('spec.dnsConfig.searches', `must not have more than ${MAX_DNS_SEARCH_LIST_CHARS} characters (including spaces) in the search list, got ${chars}`);
  for (const [i, s] of searches.entries()) {
    // A trailing dot (fully qualified) is allowed, as the API strips it before checking.
    const name = s.endsWith('.') ? s.slice(0, -1) : s;
    if (!isDns1123Subdomain(name)) report(`spec.dnsConfig.searches[${i}]`, `${quote(s)} must be a lowercase RFC 1123 subdomain`);
  }
  for (const [i, o] of (cfg.options ?? []).entries()) {
    if (o.name === '') report(`spec.dnsConfig.options[${i}].name`, 'required value');
  }
}

export function validateHostAliases(spec: PodSpec, report: Report): void {
  for (const [i, a] of (spec.hostAliases ?? []).entries()) {
    if (!isIpAddress(a.ip)) report(`spec.hostAliases[${i}].ip`, `${quote(a.ip)} must be a valid IP address`);
    for (const [j, h] of a.hostnames.entries()) checkSubdomain(h, `spec.hostAliases[${i}].hostnames[${j}]`, report);
  }
}

/** A map of labels (labels, nodeSelector): keys are qualified names, values label values; one problem per entry. */
export function validateLabelMap(map: Readonly<Record<string, string>>, path: string, report: Report): void {
  for (const [k, v] of Object.entries(map)) {
    const badKey = isQualifiedName(k);
    if (badKey !== undefined) report(`${path}[${short(k)}]`, `key ${quote(k)}: ${badKey}`);
    const badValue = isLabelValue(v);
    if (badValue !== undefined) report(`${path}[${short(k)}]`, `value ${quote(v)}: ${badValue}`);
  }
}

/** Names that refer to other objects, and the pod-level numbers. */
export function validateSpecScalars(spec: PodSpec, report: Report): void {
  if (spec.terminationGracePeriodSeconds < 0) report('spec.terminationGracePeriodSeconds', 'must be >= 0');
  const ads = spec.activeDeadlineSeconds;
  if (ads !== undefined && (ads < 1 || ads > 2147483647)) report('spec.activeDeadlineSeconds', `must be between 1 and 2147483647, inclusive, got ${ads}`);
  if (spec.hostname !== undefined && spec.hostname !== '') checkLabel(spec.hostname, 'spec.hostname', report);
  if (spec.subdomain !== undefined && spec.subdomain !== '') checkLabel(spec.subdomain, 'spec.subdomain', report);
  for (const f of ['nodeName', 'serviceAccountName', 'priorityClassName', 'runtimeClassName'] as const) {
    const v = spec[f];
    if (v !== undefined && v !== '') checkSubdomain(v, `spec.${f}`, report);
  }
  if (spec.shareProcessNamespace === true && spec.hostPID === true) report('spec.shareProcessNamespace', 'shareProcessNamespace and hostPID cannot both be enabled');
  const eph = spec.ephemeralContainers;
  if (eph !== undefined && eph !== null && !(Array.isArray(eph) && eph.length === 0)) report('spec.ephemeralContainers', 'may not be set in a static pod (the API server forbids ephemeral containers on create)');
}
