// The server's own controllers (what kube-controller-manager would run
// beside kube-apiserver), built from the configuration: the root-CA
// publisher (unless --controllers disables it) and, with
// --csr-signing, the CSR approver (node client only) and signer of the
// signers it lists, with the bindings kubeadm would add for node-client. Built once at start (reads the signing CA,
// stores the bindings); `run(signal)` runs them until the abort.
import { AGENT_SERVING_SIGNER, NODE_CLIENT_SIGNER } from '../../api/signers.js';
import type { AgentLogger } from '../../log/index.js';
import { csrSigningBindings } from '../authz/bootstrap.js';
import { CsrController } from '../controllers/csr-controller.js';
import { RootCaPublisher } from '../controllers/root-ca.js';
import { loadSigningCa, type SigningCa } from '../controllers/signing-ca.js';
import { csrSigners, type ApiServerConfig } from '../options/table.js';
import { controllerEnabled } from '../options/validate.js';
import { requireStore, type Registry } from '../registry/index.js';
import type { GenericStore } from '../registry/store.js';
import type { Authorizer } from '../types.js';
import { ensureBootstrapPolicy } from './bootstrap-policy.js';

export interface Controllers {
  /** The CA client certificates it signs chain to (trusted by the front), when signing. */
  readonly signingCaPem: string | undefined;
  run(signal: AbortSignal): Promise<void>;
}

const store = (registry: Registry, group: string, resource: string): GenericStore => requireStore(registry, { group, resource });

export interface ControllerInputs {
  config: ApiServerConfig;
  registry: Registry;
  authorizer: Authorizer;
  /** The CA clients trust for this server (published as ca.crt). */
  servingCaPem: string;
  log: AgentLogger;
}

export async function assembleControllers(i: ControllerInputs): Promise<Controllers> {
  const { config, registry, log } = i;
  const runners: Array<(signal: AbortSignal) => Promise<void>> = [];
  if (controllerEnabled(config.controllers, 'root-ca-cert-publisher')) {
    const publisher = new RootCaPublisher({ namespaces: store(registry, '', 'namespaces'), configMaps: store(registry, '', 'configmaps'), caPem: i.servingCaPem, log: log.child({ component: 'root-ca-cert-publisher' }) });
    runners.push((s) => publisher.run(s));
  }
  let ca: SigningCa | undefined;
  const signing = csrSigners(config.csrSigning);
  if (signing.nodeClient || signing.agentServing) {
    ca = await loadSigningCa({ clusterSigningCertFile: config.clusterSigningCertFile, clusterSigningKeyFile: config.clusterSigningKeyFile, certDir: config.certDir });
    if (signing.nodeClient) await ensureBootstrapPolicy(registry, { clusterRoleBindings: csrSigningBindings() });
    const signers = [...(signing.nodeClient ? [NODE_CLIENT_SIGNER] : []), ...(signing.agentServing ? [AGENT_SERVING_SIGNER] : [])];
    const csr = new CsrController({ store: store(registry, 'certificates.platform.io', 'certificatesigningrequests'), authorizer: i.authorizer, ca, signingDurationMs: config.clusterSigningDuration, signers, log: log.child({ component: 'csr-signing' }) });
    runners.push((s) => csr.run(s));
  }
  return {
    signingCaPem: ca?.certPem,
    async run(signal) {
      await Promise.all(runners.map((r) => r(signal)));
    },
  };
}
