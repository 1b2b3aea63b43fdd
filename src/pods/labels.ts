// Moved to src/runtime-view/labels.ts (the runtime view the PLEG, the status and
// the pod workers share lives below all three). This re-export keeps
// sync-pod.ts and test/helpers/sync-pod.ts compiling until their imports move;
// delete it then.
export * from '../runtime-view/labels.js';
