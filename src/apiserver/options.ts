// The option table of platform-apiserver and what is generated from it: the
// command-line parser, validation, --help and the options reference.
export { apiServerOptions, defaultConfig, API_SECTIONS, type ApiServerConfig, type ApiSection, type OptionKey, type ServerOpt } from './options/table.js';
export { parseCommandLine, normalizeArgv, type ParsedCommandLine } from './options/parse.js';
export { validateConfig, type Validated } from './options/validate.js';
export { resolveGates, API_GATES, type ApiFeatureGates, type ApiGate } from './options/gates.js';
export { renderApiServerHelp } from './options/help.js';
