import { describe, expect, it } from 'vitest';
import { configSpec } from '../../../src/config/options.js';
import { flagSpec } from '../../../src/config/flag-options.js';
import { leaves } from '../../../src/config/spec.js';
import { REDACTED, explicitSettings, isSensitive, redactEncoded } from '../../../src/config/redact.js';
import { printConfig } from '../../../src/config/print.js';
import { resolveConfig } from '../../../src/config/resolve.js';
import { parseFlags } from '../../../src/cli/flags.js';
import { validate } from '../../../src/config/validate.js';

const leaf = (path: string) => leaves(configSpec).find((l) => l.path === path)!;
const R = REDACTED;

async function resolved(args: string[]) {
  const p = parseFlags(args);
  return resolveConfig({ configFlags: p.configFlags, otherFlags: p.otherFlags, env: {} });
}

describe('the sensitive marker', () => {
  it('marks exactly the options that may carry credentials', () => {
    const marked = [...leaves(configSpec), ...leaves(flagSpec)].filter((l) => isSensitive(l.opt)).map((l) => l.path);
    expect(marked).toEqual(['staticPodURL', 'staticPodURLHeader']);
  });
});

describe('redactEncoded', () => {
  it.each([
    ['staticPodURLHeader', { Authorization: ['Bearer s3cr3t'], 'X-A': ['1', '2'] }, { Authorization: [R], 'X-A': [R, R] }],
    ['staticPodURLHeader', {}, {}],
    ['staticPodURLHeader', { __proto__x: [''] }, { __proto__x: [''] }],
    ['staticPodURL', 'https://user:pw@example.com:8443/pods?x=1', `https://${R}@example.com:8443/pods?x=1`],
    ['staticPodURL', 'https://token@example.com/pods', `https://${R}@example.com/pods`],
    ['staticPodURL', 'http://127.0.0.1:8080/pods', 'http://127.0.0.1:8080/pods'],
    ['staticPodURL', '', ''],
    ['maxPods', 110, 110],
    ['staticPodPath', '/etc/pods', '/etc/pods'],
  ])('%s %j → %j', (path, encoded, want) => {
    expect(redactEncoded(leaf(path).opt, encoded)).toEqual(want);
  });
  it('is idempotent', () => {
    const once = redactEncoded(leaf('staticPodURL').opt, 'https://u:p@h/x');
    expect(redactEncoded(leaf('staticPodURL').opt, once)).toBe(once);
  });
  it('keeps a __proto__ header name as a plain key', () => {
    const shown = redactEncoded(leaf('staticPodURLHeader').opt, JSON.parse('{"__proto__":["x"]}')) as object;
    expect(Object.keys(shown)).toEqual(['__proto__']);
  });
});

describe('--print-config and the start-up summary share the redaction', () => {
  const args = ['--manifest-url-header=Authorization:Bearer s3cr3t,X-A:1', '--manifest-url=https://alice:pw0rd@127.0.0.1:8443/pods', '--max-pods=7'];
  it('--print-config shows header names and the URL host, never the secrets', async () => {
    const text = printConfig((await resolved(args)).config, (await resolved(args)).provenance);
    expect(text).not.toMatch(/s3cr3t|pw0rd|alice/);
    expect(text).toContain(`  Authorization:\n    - ${R}\n  X-A:\n    - ${R}\n`);
    expect(text).toContain(`staticPodURL: https://${R}@127.0.0.1:8443/pods # flag --manifest-url\n`);
    expect(text).toContain(`Values that may carry credentials are shown as ${R} (staticPodURL, staticPodURLHeader).`);
    expect(text).toContain('maxPods: 7 # flag --max-pods');
  });
  it('without a secret, the header note is absent', async () => {
    const r = await resolved(['--manifest-url=http://127.0.0.1/pods']);
    expect(printConfig(r.config, r.provenance)).not.toContain(R);
  });
  it('the start-up summary lists header names only, and the URL redacted', async () => {
    const s = explicitSettings(await resolved(args));
    expect(s['staticPodURLHeader']).toEqual({ value: ['Authorization', 'X-A'], from: 'flag --manifest-url-header' });
    expect(s['staticPodURL']).toEqual({ value: `https://${R}@127.0.0.1:8443/pods`, from: 'flag --manifest-url' });
    expect(s['maxPods']).toEqual({ value: 7, from: 'flag --max-pods' });
    expect(JSON.stringify(s)).not.toMatch(/s3cr3t|pw0rd/);
  });
});

// The values the header flag accumulates (before redaction), as the command line gives them.
describe('--manifest-url-header values', () => {
  it.each([
    [['--manifest-url-header=a:1,b:2', '--manifest-url-header=a:3'], { a: ['1', '3'], b: ['2'] }],
    [['--manifest-url-header=constructor:x,toString:y,hasOwnProperty:z'], { constructor: ['x'], toString: ['y'], hasOwnProperty: ['z'] }],
  ])('%j', async (args, want) => {
    expect((await resolved(args)).config.staticPodURLHeader).toEqual(want);
  });
  it('__proto__ is a header name like any other', async () => {
    const header = (await resolved(['--manifest-url-header=__proto__:x,a:1', '--manifest-url-header=__proto__:y'])).config.staticPodURLHeader;
    expect(Object.keys(header)).toEqual(['__proto__', 'a']);
    expect(JSON.stringify(header)).toBe('{"__proto__":["x","y"],"a":["1"]}');
  });
});

describe('validation messages', () => {
  it('a manifest URL that is not http(s) is named without its userinfo', async () => {
    const messages = validate(await resolved(['--manifest-url=ftp://alice:pw0rd@127.0.0.1/pods']), { cpuCount: 2 }).problems.map((p) => p.message);
    expect(messages).toContain(`staticPodURL (--manifest-url): "ftp://${R}@127.0.0.1/pods" is not an http(s) URL`);
    expect(messages.join('\n')).not.toContain('pw0rd');
  });
});
