import { describe, expect, it } from 'vitest';
import { AgentError } from '../../../src/errors.js';
import { waitForAbort } from '../../../src/lifecycle/abort.js';
import { defineComponent } from '../../../src/lifecycle/component.js';

describe('defineComponent', () => {
  it('resolves ready on markReady and run once stopped', async () => {
    const ctl = new AbortController();
    const c = defineComponent('svc', async (signal, markReady) => {
      markReady();
      markReady();
      await waitForAbort(signal);
    });
    expect(c.name).toBe('svc');
    const running = c.run(ctl.signal);
    await c.ready;
    ctl.abort();
    await expect(running).resolves.toBeUndefined();
  });

  it('rejects ready and run with the body error when it fails before ready', async () => {
    const boom = new Error('boom');
    const c = defineComponent('svc', async () => {
      throw boom;
    });
    await expect(c.run(new AbortController().signal)).rejects.toBe(boom);
    await expect(c.ready).rejects.toBe(boom);
  });

  it('keeps ready resolved when the body fails after ready', async () => {
    const c = defineComponent('svc', async (_signal, markReady) => {
      markReady();
      throw new Error('late');
    });
    await expect(c.run(new AbortController().signal)).rejects.toThrow('late');
    await expect(c.ready).resolves.toBeUndefined();
  });

  it('rejects ready with ESTARTUP when the body returns on its own before ready', async () => {
    const c = defineComponent('svc', async () => {});
    await c.run(new AbortController().signal);
    await expect(c.ready).rejects.toMatchObject({ code: 'ESTARTUP' });
  });

  it('rejects ready with the abort reason when stopped before ready', async () => {
    const ctl = new AbortController();
    const c = defineComponent('svc', (signal) => waitForAbort(signal));
    const running = c.run(ctl.signal);
    ctl.abort('stop');
    await running;
    await expect(c.ready).rejects.toBe('stop');
  });

  it('refuses a second run()', async () => {
    const ctl = new AbortController();
    const c = defineComponent('svc', (signal) => waitForAbort(signal));
    const first = c.run(ctl.signal);
    const second = c.run(ctl.signal);
    await expect(second).rejects.toBeInstanceOf(AgentError);
    await expect(second).rejects.toMatchObject({ code: 'EINTERNAL' });
    ctl.abort();
    await first;
  });
});
