// The few fields of pods and service accounts admission reads, typed loosely
// (objects arrive as client JSON), with tolerant readers. Pure.

export const MIRROR_POD_ANNOTATION = 'platform.io/config.mirror';
export const ENFORCE_MOUNTABLE_SECRETS_ANNOTATION = 'platform.io/enforce-mountable-secrets';

export type Rec = Record<string, unknown>;
export const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
export const arr = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter(isRec) : []);

export interface PodLike {
  metadata?: { name?: string; namespace?: string; annotations?: Record<string, string>; ownerReferences?: unknown[]; [k: string]: unknown };
  spec?: Rec & { serviceAccountName?: unknown; automountServiceAccountToken?: unknown; nodeName?: unknown; volumes?: unknown; imagePullSecrets?: unknown };
  [k: string]: unknown;
}

export interface AccountLike {
  metadata?: { name?: string; namespace?: string; annotations?: Record<string, string>; [k: string]: unknown };
  automountServiceAccountToken?: unknown;
  secrets?: unknown;
  imagePullSecrets?: unknown;
  [k: string]: unknown;
}
