// The pod's security context as the API server validates it
// (ValidatePodSecurityContext, validateSysctls, validateSeccompProfileField).
import type { PodSecurityContext, SecurityContext } from './pod-types.js';
import { checkId, checkLocalDescendingPath, quote, type Report } from './pod-validate-util.js';

/** The API's sysctl name: segments of [a-z0-9] (inner '-' and '_') joined by '.' or '/'. */
const SYSCTL_NAME = /^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$/;
const SYSCTL_MAX_LENGTH = 253;

export function isSysctlName(name: string): boolean {
  return name.length <= SYSCTL_MAX_LENGTH && SYSCTL_NAME.test(name);
}

export function checkSeccomp(p: NonNullable<SecurityContext['seccompProfile']>, path: string, report: Report): void {
  if (p.type === 'Localhost') {
    if (p.localhostProfile === undefined || p.localhostProfile === '') report(`${path}.localhostProfile`, 'must be set when seccomp type is Localhost');
    else checkLocalDescendingPath(p.localhostProfile, `${path}.localhostProfile`, report);
  } else if (p.localhostProfile !== undefined) {
    report(`${path}.localhostProfile`, 'can only be set when seccomp type is Localhost');
  }
}

/** A capability name as the API server accepts it: a C identifier (`NET_ADMIN`, `CAP_SYS_TIME`). */
const CAPABILITY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The capability names of a container's securityContext (procMount's values are the decoder's enum). */
export function checkContainerSecurity(sc: SecurityContext, path: string, report: Report): void {
  for (const kind of ['add', 'drop'] as const) {
    for (const [i, cap] of (sc.capabilities?.[kind] ?? []).entries()) {
      if (!CAPABILITY.test(cap)) report(`${path}.capabilities.${kind}[${i}]`, `${quote(cap)} is not a capability name (letters, digits and '_', not starting with a digit)`);
    }
  }
}

export function validatePodSecurityContext(sc: PodSecurityContext, path: string, report: Report): void {
  checkId(sc.runAsUser, `${path}.runAsUser`, report);
  checkId(sc.runAsGroup, `${path}.runAsGroup`, report);
  checkId(sc.fsGroup, `${path}.fsGroup`, report);
  for (const [i, g] of (sc.supplementalGroups ?? []).entries()) checkId(g, `${path}.supplementalGroups[${i}]`, report);
  if (sc.seccompProfile) checkSeccomp(sc.seccompProfile, `${path}.seccompProfile`, report);
  const seen = new Set<string>();
  for (const [i, s] of (sc.sysctls ?? []).entries()) {
    const field = `${path}.sysctls[${i}].name`;
    if (s.name === '') report(field, 'required value');
    else if (!isSysctlName(s.name)) {
      report(field, `${quote(s.name)} must have at most ${SYSCTL_MAX_LENGTH} characters and be segments of lowercase letters, digits, '-' and '_' (starting and ending with a letter or digit) joined by '.' or '/'`);
    } else if (seen.has(s.name)) report(field, `duplicate sysctl ${quote(s.name)}`);
    seen.add(s.name);
  }
}
