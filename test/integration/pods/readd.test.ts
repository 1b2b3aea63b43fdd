// A pod declared again right after its teardown (a manifest deleted and put
// back): its new sync must not trust a runtime view from before the teardown
// ended, which still shows the old sandbox as ready (a container created there
// would fail, and wait out the 10 s error back-off). The pod cache forgets a
// torn-down pod, so that first sync reads the runtime itself.
import { describe, expect, it } from 'vitest';
import { IMAGE, manifest, start } from './harness.js';

describe('a pod declared again right after its teardown', () => {
  it('gets a new sandbox and runs, without a container created in the removed sandbox', async () => {
    // The production relist period: the teardown ends between two relists.
    const h = start({ plegPeriodMs: 1_000 });
    const pod = manifest('again', {}, [{ name: 'main', image: IMAGE, imagePullPolicy: 'IfNotPresent', command: ['sh'] }]);
    h.set([pod]);
    await h.until(() => h.phase(pod) === 'Running', 'Running');
    const first = h.runtime.sandboxes()[0]!.id;

    h.set([]);
    await h.until(() => h.runtime.sandboxes().length === 0 && h.status.get(pod.metadata.uid) === undefined, 'teardown');
    const mark = h.runtime.calls.length;
    h.set([pod]);
    await h.until(() => h.phase(pod) === 'Running' && h.runtime.containers().some((c) => c.state === 'RUNNING'), 'Running again', 4_000);
    expect(h.runtime.sandboxes().map((s) => s.id)).not.toContain(first);
    // No container was asked for in the sandbox the teardown removed.
    const creates = h.runtime.calls.slice(mark).filter((c) => c.method === 'createContainer');
    expect(creates.map((c) => c.args[0])).not.toContain(first);
    const waiting = h.status.get(pod.metadata.uid)!.status.containerStatuses.map((s) => s.state.waiting?.reason);
    expect(waiting).not.toContain('CreateContainerError');
  });
});
