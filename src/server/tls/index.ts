// TLS of the main port (10250): the serving material (the operator's files or
// a self-signed certificate kept in --cert-dir) and the node:tls options
// (minimum version, cipher suites, the client CA). The composition root calls
// loadAgentServingMaterial then mainTlsOptions once at start-up, logs the
// warnings and hands the options to the HTTP core.
export { loadAgentServingMaterial, regenerateReason, generateSelfSigned, CERT_FILE, KEY_FILE } from './material.js';
export type { ServingMaterial, MaterialOptions } from './material.js';
export { mainTlsOptions, tlsVersionAndCiphers } from './options.js';
export type { TlsSettings } from './options.js';
