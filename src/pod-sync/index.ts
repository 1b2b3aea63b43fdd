// Public surface of the pod-sync folder (API-server mode, issue 19): the pod
// status sync (the kubelet's status manager: statuses to the API, the final
// status and deletion of a pod deleted through the API) and the mirror pod
// manager (static pods made visible in the API). The API pod source itself
// lives with the other sources (src/sources/api.ts) and is re-exported here.
export { API_SOURCE_DEBOUNCE_MS, createApiPodSource, type ApiPodSource, type ApiPodSourceOptions } from '../sources/api.js';
export { createPodStatusSync, STATUS_RESYNC_MS, STATUS_RETRY_INITIAL_MS, type PodStatusSyncOptions } from './status-sync.js';
export { createMirrorPods, MIRROR_RETRY_INITIAL_MS, MIRROR_RETRY_MAX_MS, type MirrorPods, type MirrorPodsOptions } from './mirror.js';
export { isStaticPod, mirrorActions, mirrorPodObject, mirrorRefOf, type MirrorAction, type MirrorRef, type NodeRef } from './mirror-diff.js';
export { AGENT_CONDITIONS, apiPodAction, apiStatusOf, finalStatus, mergedStatus, statusTarget, type StatusTarget } from './status-decide.js';
