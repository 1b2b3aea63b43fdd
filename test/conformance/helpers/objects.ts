// Small object builders and steps shared by the conformance files.
import { expect } from 'vitest';
import type { ApiClient, Json } from './api-client.js';
import { uniq } from './backends.js';

export const CORE = '/api/v1';
export const ns = (n: string): string => `${CORE}/namespaces/${n}`;
export const CTB = '/apis/certificates.platform.io/v1alpha1/clustertrustbundles';

/** Creates a fresh namespace and returns its name. */
export async function makeNamespace(c: ApiClient, prefix = 'ns'): Promise<string> {
  const name = uniq(prefix);
  const r = await c.post(`${CORE}/namespaces`, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  expect(r.status, r.text()).toBe(201);
  return name;
}

export const sa = (name: string, extra: Json = {}): Json => ({ apiVersion: 'v1', kind: 'ServiceAccount', ...extra, metadata: { ...(extra.metadata ?? {}), name } });
export const cm = (name: string, data: Record<string, string> = {}, metadata: Json = {}): Json => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...metadata, name }, data });
export const pod = (name: string, spec: Json = {}, metadata: Json = {}): Json => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { ...metadata, name },
  spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec },
});

/** Polls `fn` until it returns true (bounded); for effects the server applies asynchronously. */
export async function eventually(what: string, fn: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const rv = (o: Json): number => Number(o.metadata.resourceVersion);
