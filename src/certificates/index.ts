// The agent's certificates (issue 19 item 9): TLS bootstrap of the client
// certificate, its rotation, the serving certificate's rotation, and the
// file layout of --cert-dir. The composition root calls
// bootstrapClientCertificate before building the API client, runs
// createClientCertificateRotation with --rotate-certificates and
// createServingCertificateRotation with --rotate-server-certificates.
export { bootstrapClientCertificate, platformConfigValidity, type BootstrapOptions } from './bootstrap.js';
export { ClientCertificateExpiredError, EXPIRED_EXIT_AFTER_MS, createClientCertificateRotation, type ClientCertificateRotation, type ClientRotationOptions } from './rotation.js';
export { CertificateRequestError, csrOutcome, type CsrOutcome, type CsrRequestProblem } from './request.js';
export { CertificateFileError, type CertKeyPair } from './store.js';
export { CLIENT_PAIR_PREFIX, clientCertificateValidity, pairPaths, type CertificateValidity, type Lifetime, type PairPaths } from './layout.js';
export { rotationDeadline, renewRetryDelayMs, BOOTSTRAP_WAIT_MS, RENEW_WAIT_MS } from './deadline.js';
export { digestedCsrName, nodeClientCsr } from './csr.js';
export { ADDRESS_CHECK_MS, createServingCertificateRotation, type ServingCertificateRotation, type ServingCertificateSource, type ServingRotationOptions } from './serving.js';
export { canonicalIp, certificateTemplate, nodeServingCsr, nodeServingUsages, satisfiesTemplate, servingRotationDecision, servingSans, servingStep, type ServingRotationInputs, type ServingState, type ServingStep, type StatusAddress } from './serving-csr.js';
