import { describe, expect, it } from 'vitest';
import { parseFlags } from '../../../src/cli/flags.js';
import { configzDocument } from '../../../src/config/print.js';
import { resolveConfig } from '../../../src/config/resolve.js';
import { REDACTED } from '../../../src/config/redact.js';

async function resolved(args: string[]) {
  const p = parseFlags(args);
  return resolveConfig({ configFlags: p.configFlags, otherFlags: p.otherFlags, env: {} });
}

describe('configzDocument', () => {
  it('serves the effective configuration with where each value came from, sensitive values redacted', async () => {
    const r = await resolved(['--read-only-port=0', '--manifest-url=http://user:pw@127.0.0.1:1/pods', '--authorization-mode=Webhook']);
    const doc = configzDocument(r.config, r.provenance);
    expect(doc.agentconfig).toMatchObject({ kind: 'AgentConfiguration', readOnlyPort: 0, authorization: { mode: 'Webhook' } });
    expect(JSON.stringify(doc.agentconfig)).not.toContain('pw@');
    expect(JSON.stringify(doc.agentconfig)).toContain(REDACTED);
    expect(doc.sources).toMatchObject({ readOnlyPort: 'flag --read-only-port', 'authorization.mode': 'flag --authorization-mode', port: 'default' });
    // One source per field of the document.
    expect(Object.keys(doc.sources).length).toBeGreaterThan(50);
  });
});
