// The node's HTTP surface as the built agent serves it on a real containerd
// (issue 18, the wiring in src/serve.ts): the read-only port's pods, health,
// metrics and stats for a running pod, and none of the debugging handlers;
// the main port over TLS with the agent's own self-signed certificate,
// authenticating a client certificate signed by --client-ca-file and
// refusing a request without one (--anonymous-auth=false), and `kubectl get
// --raw /pods` (Debian's kubernetes-client) trusting the agent's own CA.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateKeyPair, issueCertificate, privateKeyPem } from '../../src/pki/x509.js';
import { freePort } from '../helpers/agent-daemon.js';
import { container, pod, podUid, running, waitFor } from './helpers/agent-node.js';
import { skipWithoutRuntime, useRuntime } from './helpers/e2e-env.js';

const skip = skipWithoutRuntime('node servers');
const run = promisify(execFile);

/** A platformconfig (kubeconfig) for kubectl: the node's main port, its CA from --cert-dir, the client certificate. */
function kubeconfig(dir: string, port: number, caFile: string, client: { cert: string; key: string }): string {
  const file = join(dir, 'kubeconfig');
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: node',
      '  cluster:',
      `    server: https://127.0.0.1:${port}`,
      `    certificate-authority: ${caFile}`,
      'users:',
      '- name: operator',
      '  user:',
      `    client-certificate-data: ${b64(client.cert)}`,
      `    client-key-data: ${b64(client.key)}`,
      'contexts:',
      '- name: node',
      '  context: { cluster: node, user: operator }',
      'current-context: node',
      '',
    ].join('\n'),
  );
  return file;
}

interface Answer {
  status: number;
  body: string;
}

function get(url: string, tls?: { cert?: string; key?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const send = url.startsWith('https:') ? httpsRequest : httpRequest;
    // The agent's certificate is self-signed for its hosts: this test checks the client side, not the server's chain.
    const req = send(url, { method: 'GET', timeout: 10_000, ...(url.startsWith('https:') ? { rejectUnauthorized: false, ...tls } : {}) }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.once('timeout', () => req.destroy(new Error(`GET ${url}: no answer within 10 s`)));
    req.once('error', reject);
    req.end();
  });
}

function clientPki(dir: string): { caFile: string; cert: string; key: string } {
  const now = Date.now();
  const caKey = generateKeyPair();
  const subject = { commonName: 'e2e-client-ca' };
  const ca = issueCertificate({ subject, publicKey: caKey.publicKey, selfKey: caKey.privateKey, notBefore: new Date(now - 60_000), notAfter: new Date(now + 3_600_000), isCA: true });
  const key = generateKeyPair();
  const cert = issueCertificate({
    subject: { commonName: 'operator', organizations: ['ops'] },
    publicKey: key.publicKey,
    issuer: { subject, privateKey: caKey.privateKey, publicKey: caKey.publicKey },
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 3_600_000),
    isCA: false,
    hosts: [],
    usage: 'client',
  });
  const caFile = join(dir, 'client-ca.crt');
  writeFileSync(caFile, ca);
  return { caFile, cert, key: privateKeyPem(key.privateKey) };
}

describe.skipIf(skip)('the node servers of the running agent', () => {
  const env = useRuntime();
  const dir = mkdtempSync(join(tmpdir(), 'agent-servers-e2e-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serve pods, health, metrics and stats read-only, and the main port over TLS to a client certificate only (kubectl get --raw /pods included)', async () => {
    const pki = clientPki(dir);
    const [ro, main] = [await freePort(), await freePort()];
    const node = env.newNode();
    node.writeManifest('web.yaml', pod('web', [container('main')]));
    const agent = await node.start([`--read-only-port=${ro}`, `--port=${main}`, `--client-ca-file=${pki.caFile}`, '--anonymous-auth=false', `--cert-dir=${join(dir, 'pki')}`]);
    const uid = await podUid(agent, 'web');
    await running(env.cri, uid, 'main', 30_000, agent);
    const roUrl = `http://127.0.0.1:${ro}`;

    const pods = await waitFor('/pods to list the running pod', 20_000, async () => {
      const r = await get(`${roUrl}/pods`);
      const list = JSON.parse(r.body) as { kind: string; items: { metadata: { uid: string }; status?: { phase?: string } }[] };
      return list.items.some((p) => p.metadata.uid === uid && p.status?.phase === 'Running') ? list : undefined;
    }, agent);
    expect(pods.kind).toBe('PodList');
    expect(await get(`${roUrl}/healthz`)).toEqual({ status: 200, body: 'ok' });
    const metrics = await get(`${roUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatch(/^agent_runtime_operations_duration_seconds_count\{operation_type="run_podsandbox"\} [1-9]/m);
    expect(metrics.body).toMatch(/^agent_running_pods 1$/m);
    const summary = await waitFor('/stats/summary with the pod', 30_000, async () => {
      const r = await get(`${roUrl}/stats/summary`);
      if (r.status !== 200) return undefined;
      const s = JSON.parse(r.body) as { node: { nodeName: string }; pods: { podRef: { uid: string }; containers?: { name: string }[] }[] };
      return s.pods.some((p) => p.podRef.uid === uid) ? s : undefined;
    }, agent, 500);
    expect(summary.pods.find((p) => p.podRef.uid === uid)?.containers?.map((c) => c.name)).toEqual(['main']);
    // Nothing that shows configuration, reads logs or runs commands on the read-only port.
    for (const path of ['/configz', '/containerLogs/default/web-e2e-node/main', '/logs/', '/runningpods/']) expect((await get(`${roUrl}${path}`)).status, path).toBe(404);

    const mainUrl = `https://127.0.0.1:${main}`;
    expect((await get(`${mainUrl}/pods`)).status).toBe(401);
    const authed = await get(`${mainUrl}/pods`, { cert: pki.cert, key: pki.key });
    expect(authed.status).toBe(200);
    expect(authed.body).toContain(uid);
    const configz = JSON.parse((await get(`${mainUrl}/configz`, { cert: pki.cert, key: pki.key })).body) as { agentconfig: { readOnlyPort: number }; sources: Record<string, string> };
    expect(configz.agentconfig.readOnlyPort).toBe(ro);
    expect(configz.sources['readOnlyPort']).toBe('flag --read-only-port');
    const logs = await get(`${mainUrl}/containerLogs/default/web-e2e-node/main?tailLines=5`, { cert: pki.cert, key: pki.key });
    expect(logs.status).toBe(200);
    // What operators run: kubectl, verifying the agent's self-signed certificate against its own CA (agent.crt holds both).
    const config = kubeconfig(dir, main, join(dir, 'pki', 'agent.crt'), pki);
    const { stdout } = await run('kubectl', ['--kubeconfig', config, '--cache-dir', join(dir, 'kube-cache'), 'get', '--raw', '/pods'], { env: { ...process.env, HOME: dir }, timeout: 30_000 });
    const viaKubectl = JSON.parse(stdout) as { kind: string; items: { metadata: { uid: string } }[] };
    expect(viaKubectl.kind).toBe('PodList');
    expect(viaKubectl.items.map((p) => p.metadata.uid)).toContain(uid);
  });
});
