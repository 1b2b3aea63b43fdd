// One request as the verb handlers see it: the front's ApiRequest, the
// registry entry it addresses, the kind it speaks and how to answer.
import type { ServerResponse } from 'node:http';
import type { Faults } from '../faults/index.js';
import type { ApiRequest, RequestInfo } from '../types.js';
import type { AdmissionPort, GroupVersionKind, RegistryPort, ResourceEntry, WireCodec } from './ports.js';
import type { Answer } from './respond.js';

export interface HandlerLog {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
}

export interface HandlerDeps {
  registry: RegistryPort;
  wire: WireCodec;
  gates: { watchList: boolean; compression: boolean; chunking: boolean };
  /** Watches without timeoutSeconds last a random time in [min, 2×min) (kube-apiserver's --min-request-timeout). */
  minRequestTimeoutSeconds: number;
  log: HandlerLog;
  /** Admission plugins (service accounts, node restriction, trust-bundle attest); none: everything is admitted. */
  admission?: AdmissionPort;
  /** Test-only fault injection (undefined in a normal start). */
  faults?: Faults;
}

export interface RequestContext {
  req: ApiRequest;
  res: ServerResponse;
  info: RequestInfo;
  entry: ResourceEntry;
  /** The kind of the addressed resource (a subresource's own kind for status). */
  gvk: GroupVersionKind;
  deps: HandlerDeps;
  answer: Answer;
}

/**
 * Whether `sub` is an update-style subresource of the entry (`status`, a
 * CSR's `approval`): declared by the resource and not an action. PUT and
 * PATCH on it go to the store with that subresource; GET returns the object.
 */
export function isUpdateSubresource(entry: ResourceEntry, sub: string): boolean {
  return sub !== '' && entry.actions[sub] === undefined && (entry.info.subresources ?? []).some((s) => s.name === sub);
}

/** The update-style subresource a write addresses, or '' for the main resource. */
export function updateSubresource(ctx: RequestContext): string {
  return isUpdateSubresource(ctx.entry, ctx.info.subresource) ? ctx.info.subresource : '';
}
