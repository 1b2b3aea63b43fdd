// An independent, widely used client — @kubernetes/client-node, configured
// from the server's --admin-platformconfig file like kubectl would be — lists,
// watches, creates, patches and deletes over JSON, and sees the same objects
// and events as this suite's plain HTTP client.
import { CoreV1Api, KubeConfig, PatchStrategy, Watch, setHeaderOptions, type V1ConfigMap } from '@kubernetes/client-node';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { describeBackends } from './helpers/backends.js';
import { cm, makeNamespace, ns } from './helpers/objects.js';

describeBackends('@kubernetes/client-node against the server', {}, (srv) => {
  let kc: KubeConfig;
  let api: CoreV1Api;
  beforeAll(() => {
    kc = new KubeConfig();
    kc.loadFromFile(join(srv().dir, 'admin.conf'));
    api = kc.makeApiClient(CoreV1Api);
  });

  it('creates, lists, patches and deletes, and its watch sees the same events as the plain client', async () => {
    const n = await makeNamespace(srv().admin);
    const start = (await srv().admin.get(`${ns(n)}/configmaps`)).json().metadata.resourceVersion as string;
    const seen: Array<[string, string, string | undefined]> = [];
    const ended = new Promise<void>((resolve) => {
      void watchUntil(kc, `/api/v1/namespaces/${n}/configmaps`, start, seen, resolve);
    });
    const plain = await srv().admin.watch(`${ns(n)}/configmaps`, { resourceVersion: start });
    try {
      const created = await api.createNamespacedConfigMap({ namespace: n, body: { metadata: { name: 'from-client-node' }, data: { a: '1' } } });
      expect(created.metadata?.uid).toMatch(/.+/);
      await srv().admin.post(`${ns(n)}/configmaps`, cm('from-plain', { b: '2' }));
      const list = await api.listNamespacedConfigMap({ namespace: n });
      expect(list.items.map((i) => i.metadata?.name).sort()).toEqual(['from-client-node', 'from-plain']);
      const plainRead = (await srv().admin.get(`${ns(n)}/configmaps/from-client-node`)).json();
      expect(plainRead.metadata.resourceVersion).toBe(created.metadata?.resourceVersion);
      const patched = await api.patchNamespacedConfigMap({ namespace: n, name: 'from-plain', body: { data: { b: '3' } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
      expect(patched.data).toEqual({ b: '3' });
      await api.deleteNamespacedConfigMap({ namespace: n, name: 'from-client-node' });
      const plainEvents = await plain.until((e) => e.type === 'DELETED');
      await ended;
      expect(seen).toEqual(plainEvents.map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion]));
      expect(seen.map(([t, name]) => `${t} ${name}`)).toEqual(['ADDED from-client-node', 'ADDED from-plain', 'MODIFIED from-plain', 'DELETED from-client-node']);
    } finally {
      plain.close();
    }
  });
});

/** client-node's Watch until the first DELETED event, recording (type, name, resourceVersion). */
async function watchUntil(kc: KubeConfig, path: string, resourceVersion: string, seen: Array<[string, string, string | undefined]>, done: () => void): Promise<void> {
  const watch = new Watch(kc);
  const ac = await watch.watch(
    path,
    { resourceVersion },
    (type: string, obj: V1ConfigMap) => {
      seen.push([type, obj.metadata?.name ?? '', obj.metadata?.resourceVersion]);
      if (type === 'DELETED') {
        ac.abort();
        done();
      }
    },
    () => done(),
  );
}
