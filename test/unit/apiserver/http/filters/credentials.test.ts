import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { credentialsOf } from '../../../../../src/apiserver/http/filters/authentication.js';

const NOW = Date.parse('2026-11-24T12:00:00Z');
function req(cert: { valid_from: string; valid_to: string }, authorized = true): IncomingMessage {
  const socket = { authorized, getPeerCertificate: () => ({ subject: { CN: 'system:node:n1', O: 'system:nodes' }, ...cert }) };
  return { socket, headers: {} } as unknown as IncomingMessage;
}

describe('credentialsOf: a client certificate is an identity only while valid', () => {
  it.each([
    { why: 'valid now', from: 'Nov 24 11:00:00 2026 GMT', to: 'Nov 24 13:00:00 2026 GMT', identity: true },
    { why: 'expired during a keep-alive connection', from: 'Nov 24 10:00:00 2026 GMT', to: 'Nov 24 11:59:59 2026 GMT', identity: false },
    { why: 'not valid yet', from: 'Nov 24 12:00:01 2026 GMT', to: 'Nov 24 13:00:00 2026 GMT', identity: false },
    { why: 'dates unreadable', from: '', to: 'garbage', identity: false },
  ])('$why', ({ from, to, identity }) => {
    const c = credentialsOf(req({ valid_from: from, valid_to: to }), NOW);
    expect(c.clientCertificate).toEqual(identity ? { commonName: 'system:node:n1', organizations: ['system:nodes'] } : undefined);
  });

  it('a certificate that did not verify against the client CA is none', () => {
    expect(credentialsOf(req({ valid_from: 'Nov 24 11:00:00 2026 GMT', valid_to: 'Nov 24 13:00:00 2026 GMT' }, false), NOW).clientCertificate).toBeUndefined();
  });
});
