// Transforms an informer applies to every object before it enters the store
// and before any handler sees it (client-go's SetTransform): the cache keeps
// only what its readers use. Called by the reflector, synchronously, once per
// listed or watched object (never for BOOKMARKs), on the object the
// ListerWatcher handed over (the informer then owns it), so a transform may
// return the same object changed or a new one; it must keep metadata.name, namespace
// and resourceVersion, which the store and the reflector read after it.
import type { ApiObject } from '../types.js';

export type ObjectTransform = (obj: ApiObject) => ApiObject;

// The informer option omitManagedFields does this and also spares the decode; the transform serves other ListerWatchers.
export { stripManagedFields } from '../meta.js';
