// Public surface of the sources folder: the file and URL pod sources, the
// manifest parser they share, and the merger of their pod sets.
export { configuredSourceNames, createConfiguredSources, type ConfiguredSourcesInput } from './configured.js';
export { createFileSource, type FileSourceOptions } from './file.js';
export { createUrlSource, type UrlSourceOptions } from './http.js';
export { createManifestParser, type ManifestParser, type ManifestParserOptions } from './parser.js';
export { PodConfigMerger, type PodUpdate, type Rejection, type SourceName } from './merger.js';
export { API_SOURCE_DEBOUNCE_MS, createApiPodSource, type ApiPodSource, type ApiPodSourceOptions } from './api.js';
