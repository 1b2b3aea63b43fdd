// Public surface of the lifecycle package: the component contract, the
// supervisor that runs components, signal handling, liveness and the lock file.

export { abortableSleep, abortWaiters, isAbortError, onAbort, waitForAbort } from './abort.js';
export { defineComponent, type Component, type ComponentBody, type LifecycleLog } from './component.js';
export { LivenessRegistry, type LivenessCheck, type LivenessReport, type LivenessResult } from './liveness.js';
export { acquireLock, LockBusyError, type AcquireLockOptions, type HeldLock } from './lockfile.js';
export { lockRootDir, rootDirLockPath, ROOT_DIR_LOCK_FILE, ROOT_DIR_LOCK_WAIT_MS, type RootDirLockOptions } from './root-dir-lock.js';
export {
  installSignalHandlers,
  ShutdownSignal,
  type SignalHandlerOptions,
  type SignalSource,
} from './signals.js';
export { runComponents, type RunComponentsOptions } from './supervisor.js';
