// The contracts of the volume layer: a plugin per volume kind, what a plugin
// is given, and the typed error a set-up fails with. Kept apart from the
// manager so that later plugins (configMap, secret, projected, cluster trust
// bundles, once an API server exists) depend on these types only.
import type { Pod, Volume } from '../pod-model/pod-types.js';
import type { AgentLogger } from '../log/index.js';

/** Facts about the node a plugin may need (downward API defaults, tmpfs sizes). */
export interface NodeFacts {
  /** Allocatable memory in bytes (node memory, as nothing is reserved). */
  memoryBytes: number;
  /** Allocatable CPU in millicores. */
  cpuMilli: number;
  /** Allocatable ephemeral storage in bytes (0: unknown). */
  ephemeralStorageBytes: number;
}

/** What a plugin is given to set up or tear down one volume of one pod. */
export interface VolumeContext {
  readonly pod: Pod;
  readonly volume: Volume;
  /**
   * The volume's own directory under --root-dir
   * (`<root>/pods/<uid>/volumes/<plugin>/<name>`); a plugin that serves a host
   * path (hostPath) does not use it.
   */
  readonly dir: string;
  readonly node: NodeFacts;
  readonly log: AgentLogger;
  readonly signal: AbortSignal;
}

/**
 * One volume kind (the kubelet's VolumePlugin with its Mounter/Unmounter,
 * narrowed to what a node does on its own). Called by the volume manager only,
 * one pod at a time per pod (a pod's syncs never overlap), so a plugin needs no
 * locking of its own per volume.
 */
export interface VolumePlugin {
  /** Directory name under `volumes/` (the kubelet's escaped plugin name, renamed): `platform.io~empty-dir`. */
  readonly name: string;
  /** Whether this plugin serves the volume. Pure. */
  canSupport(volume: Volume): boolean;
  /**
   * Makes the volume ready. Idempotent: every sync of the pod calls it again
   * (so a downward API volume follows label changes) and it must neither
   * remount nor rewrite what is already right. Throws VolumeSetUpError with the
   * reason the pod waits. May block on the filesystem and on mount(8).
   */
  setUp(ctx: VolumeContext): Promise<void>;
  /**
   * Undoes setUp for a volume directory found on disk (the pod's spec may be
   * gone: only `dir` is known). Unmounts what the plugin mounted; the manager
   * removes the directory afterwards. Idempotent.
   */
  tearDown(dir: string, signal: AbortSignal): Promise<void>;
}

/** Why a volume is not ready; its message is what the pod waits with (the kubelet's FailedMount event text). */
export class VolumeSetUpError extends Error {
  readonly code = 'VOLUME_SETUP_FAILED';
  constructor(
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'VolumeSetUpError';
  }
}

/** The result of setting up a pod's volumes: ready, or the first volume that is not, with the kubelet's message. */
export type VolumesOutcome =
  | { ready: true }
  | {
      ready: false;
      /** The volume that is not ready. */
      volume: string;
      /** Its kind as the API names the source (`hostPath`, `configMap`, ...). */
      kind: string;
      /** `MountVolume.SetUp failed for volume "x" : ...`. */
      message: string;
      error: VolumeSetUpError;
    };
