// --rotate-server-certificates and its neighbours: the option table's gate
// error, and the decision table of when the serving certificate is asked for.
import { describe, expect, it } from 'vitest';
import { parseFlags } from '../../../src/cli/flags.js';
import { servingRotationDecision, type ServingRotationInputs } from '../../../src/certificates/serving-csr.js';
import { resolveConfig } from '../../../src/config/resolve.js';
import { validate } from '../../../src/config/validate.js';

async function problems(argv: string[]): Promise<string[]> {
  const p = parseFlags(argv);
  const resolved = await resolveConfig({ configFlags: p.configFlags, otherFlags: p.otherFlags, env: {} });
  return validate(resolved).problems.map((e) => e.message);
}

describe('--rotate-server-certificates validation', () => {
  it('is accepted with its beta gate on by default', async () => {
    expect(await problems(['--rotate-server-certificates'])).toEqual([]);
  });
  it('names the gate when it is turned off', async () => {
    expect(await problems(['--rotate-server-certificates', '--feature-gates=RotateAgentServerCertificate=false'])).toEqual([
      expect.stringMatching(/serverTLSBootstrap \(--rotate-server-certificates\).*needs the feature gate RotateAgentServerCertificate, which is disabled/),
    ]);
  });
});

describe('servingRotationDecision', () => {
  const base: ServingRotationInputs = { serverTLSBootstrap: true, enableServer: true, tlsCertFile: '', tlsPrivateKeyFile: '', apiServer: true };
  it.each<[string, Partial<ServingRotationInputs>, boolean, RegExp | undefined]>([
    ['API-server mode: rotates', {}, true, undefined],
    ['flag off', { serverTLSBootstrap: false }, false, undefined],
    ['no main server', { enableServer: false }, false, undefined],
    ['standalone: ignored, said', { apiServer: false }, false, /^--rotate-server-certificates: no API server to ask .*ignored, the main port serves a self-signed certificate$/],
    ['--tls-cert-file wins', { tlsCertFile: '/etc/a.crt', tlsPrivateKeyFile: '/etc/a.key' }, false, /--tls-cert-file and --tls-private-key-file are given and win/],
    ['a lone --tls-private-key-file wins too (the serving material refuses it)', { tlsPrivateKeyFile: '/etc/a.key' }, false, /win/],
  ])('%s', (_n, over, rotate, warning) => {
    const d = servingRotationDecision({ ...base, ...over });
    expect(d.rotate).toBe(rotate);
    if (warning === undefined) expect(d.warning).toBeUndefined();
    else expect(d.warning).toMatch(warning);
  });
});
