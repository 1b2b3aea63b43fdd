import { mkdirSync, symlinkSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { listDropIns, loadConfigFile } from '../../../src/config/load.js';
import { ConfigFileError, ValidationError } from '../../../src/errors.js';
import { tempDir } from '../../helpers/agent-process.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const HEAD = { apiVersion: 'agent.config.platform.io/v1beta1', kind: 'AgentConfiguration' };

describe('listDropIns (filepath.WalkDir order)', () => {
  it('walks subdirectories where they sort among their siblings', () => {
    for (const f of ['w/b.conf', 'w/a/z.conf', 'w/a.conf', 'w/c/d/e.conf', 'w/c.txt', 'w/.hidden.conf']) tmp.write(f, stringify(HEAD));
    // "a" < "a.conf": the directory's files come first, as WalkDir reads sorted names.
    return expect(listDropIns(`${tmp.dir}/w`)).resolves.toEqual(['.hidden.conf', 'a/z.conf', 'a.conf', 'b.conf', 'c/d/e.conf'].map((f) => `${tmp.dir}/w/${f}`));
  });
  it('names an entry that cannot be read instead of crashing', async () => {
    mkdirSync(`${tmp.dir}/x`);
    symlinkSync(`${tmp.dir}/x/nowhere`, `${tmp.dir}/x/10.conf`);
    const err = await listDropIns(`${tmp.dir}/x`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigFileError);
    expect(err).toMatchObject({ file: `${tmp.dir}/x/10.conf` });
    expect((err as Error).message).toContain('ENOENT');
  });
  it('rejects a *.conf entry that is not a regular file', async () => {
    mkdirSync(`${tmp.dir}/fifo`);
    symlinkSync('/dev/null', `${tmp.dir}/fifo/10.conf`);
    await expect(listDropIns(`${tmp.dir}/fifo`)).rejects.toThrow(`drop-in config file "${tmp.dir}/fifo/10.conf" is not a regular file`);
  });
});

describe('loadConfigFile', () => {
  it('keeps __proto__ and constructor keys of maps as plain keys', async () => {
    const file = tmp.write('proto.yaml', `${stringify(HEAD)}featureGates:\n  __proto__: true\n  constructor: false\nsystemReserved:\n  __proto__: "1"\nstaticPodURLHeader:\n  __proto__: [a]\n  toString: [b]\n`);
    const layer = await loadConfigFile(file, 'file');
    expect(JSON.stringify(layer.values.get('featureGates'))).toBe('{"__proto__":true,"constructor":false}');
    expect(Object.keys(layer.values.get('systemReserved') as object)).toEqual(['__proto__']);
    expect(JSON.stringify(layer.values.get('staticPodURLHeader'))).toBe('{"__proto__":["a"],"toString":["b"]}');
  });
  it('a __proto__ field at the top level is an unknown field, not a prototype', async () => {
    const file = tmp.write('proto-top.yaml', `${stringify(HEAD)}__proto__:\n  maxPods: 5\n`);
    const layer = await loadConfigFile(file, 'file');
    expect(layer.values.has('maxPods')).toBe(false);
    expect(layer.warnings.join('\n')).toContain('unknown field "__proto__"');
  });
  it('an empty enum value is read (resolve treats it as unset)', async () => {
    const file = tmp.write('enum.yaml', `${stringify(HEAD)}cgroupDriver: ""\n`);
    expect((await loadConfigFile(file, 'file')).values.get('cgroupDriver')).toBe('');
  });
  it('an unknown enum value is still an error', async () => {
    const file = tmp.write('swap.yaml', `${stringify(HEAD)}memorySwap:\n  swapBehavior: Sometimes\n`);
    await expect(loadConfigFile(file, 'file')).rejects.toBeInstanceOf(ValidationError);
  });
});
