// Public surface of the container runtime boundary. Importing this module is
// cheap: grpc-js and protobufjs load only when createCriRuntime() runs.
// FakeRuntime (fake-runtime.ts) is for tests and is imported from there directly.

export type * from './types.js';
export {
  CriError,
  isAlreadyExists,
  isCriError,
  isDeadlineExceeded,
  isNotFound,
  isTransient,
  isUnavailable,
  isUnimplemented,
  type GrpcStatusName,
} from './errors.js';
export { createCriRuntime, stopDeadlineMs, DEFAULT_CONNECT_TIMEOUT_MS, type CriLog, type CriRuntime, type CriRuntimeOptions } from './grpc-client.js';
export { parseEndpoint, type ParsedEndpoint } from './endpoint.js';
