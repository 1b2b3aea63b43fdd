// Fuzz tier (issue 13), name-shaped and structured flag values: label and
// taint syntax, node labels, eviction thresholds, reserved resources and TLS
// names. Checks return problem lists and must never throw; parsers throw
// only ValueError; what they accept satisfies the API's rules.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isDns1123Subdomain, isLabelValue, isQualifiedName } from '../../src/config/values/names.js';
import { parseNodeLabels, validateNodeLabels } from '../../src/config/values/labels.js';
import { TAINT_EFFECTS, parseTaints, validateTaint, validateTaintList, type Taint } from '../../src/config/values/taints.js';
import { EVICTION_SIGNALS, buildThresholds, parseEvictionFlag } from '../../src/config/values/eviction.js';
import { parseReservedMemory, validatePercentMap, validateReservedMemory, validateResourceList, type ReservedMemory } from '../../src/config/values/resources.js';
import { INSECURE_CIPHERS, SECURE_CIPHERS, TLS_VERSIONS, checkTls, toNodeTlsVersion, toOpenSslCiphers } from '../../src/config/values/tls.js';
import { ValueError } from '../../src/errors.js';
import { anyJson, attempt, check, checkLong, fuzzText, mutate, numberText } from './flag-arbitraries.js';
import { refDnsSubdomain, refLabelValue, refQualifiedName } from './flag-oracles.js';

const NAME_PIECES = ['a', 'Z', '0', '9', '-', '_', '.', '/', 'example.com', 'platform.io', 'node.platform.io/', 'x'.repeat(63), 'y'.repeat(64), 'A', ' ', '\u00e9', '..', '-a', 'a-'];
const nameText = fuzzText(NAME_PIECES, 6);

describe('names (apimachinery validation)', () => {
  it('isQualifiedName, isLabelValue and isDns1123Subdomain agree with character-by-character references', () => {
    check(
      fc.property(nameText, (text) => {
        expect(isQualifiedName(text) === undefined).toBe(refQualifiedName(text));
        expect(isLabelValue(text) === undefined).toBe(refLabelValue(text));
        expect(isDns1123Subdomain(text) === undefined).toBe(refDnsSubdomain(text));
      }),
      3000,
    );
  });

  it('answer flag-sized adversarial names without backtracking blow-up', () => {
    checkLong(['a', 'a-', 'a.', '-', 'a_', '0.a-'], 'name checks', (text) => {
      isQualifiedName(text);
      isLabelValue(text);
      isDns1123Subdomain(text);
    });
  });
});

describe('node labels', () => {
  it('parseNodeLabels never throws; validateNodeLabels reports rather than throws, and passes only valid pairs', () => {
    check(
      fc.property(fuzzText([...NAME_PIECES, '=', ',', 'platform.io/os', 'agent.platform.io/x'], 10), (text) => {
        const labels = parseNodeLabels(text);
        const problems = validateNodeLabels(labels);
        if (problems.length === 0) {
          for (const [k, v] of Object.entries(labels)) {
            expect(refQualifiedName(k)).toBe(true);
            expect(refLabelValue(v)).toBe(true);
          }
        }
      }),
      1000,
    );
  });
});

const TAINT_PIECES = [...NAME_PIECES, '=', ':', ',', '-', ...TAINT_EFFECTS, 'NoScheduleX', ':NoSchedule', 'key=value:NoExecute'];

describe('taints', () => {
  it('parseTaints accepts only valid taints, without duplicates, and their flag text parses back the same', () => {
    check(
      fc.property(fuzzText(TAINT_PIECES, 8), (text) => {
        const r = attempt(() => parseTaints(text), ValueError);
        if (!r.ok) return;
        expect(validateTaintList(r.value)).toEqual([]);
        const again = r.value.map((t) => `${t.key}${t.value === undefined ? '' : `=${t.value}`}:${t.effect}`).join(',');
        expect(parseTaints(again)).toEqual(r.value);
      }),
      2000,
    );
  });

  it('validateTaint and validateTaintList report problems for any decoded file value', () => {
    check(
      fc.property(fc.array(fc.record({ key: anyJson, value: anyJson, effect: fc.oneof(anyJson, fc.constantFrom(...TAINT_EFFECTS)) }, { requiredKeys: [] }), { maxLength: 4 }), (list) => {
        for (const t of list) expect(Array.isArray(validateTaint(t))).toBe(true);
        expect(Array.isArray(validateTaintList(list as unknown as Taint[]))).toBe(true);
      }),
    );
  });
});

const THRESHOLD_PIECES = ['0', '1', '5', '.', '%', '-', '+', 'e', 'e400', 'e-400', '100', 'Mi', 'Gi', 'm', 'Ki', 'x', ' ', '1e999'];
const signal = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...EVICTION_SIGNALS) }, { weight: 1, arbitrary: fc.constantFrom('memory.free', '', '__proto__') });
const thresholdText = fc.oneof(fuzzText(THRESHOLD_PIECES, 5), numberText, numberText.map((n) => `${n}%`));
const thresholdMap = fc.dictionary(signal, thresholdText, { maxKeys: 4 });
const graceMap = fc.dictionary(signal, fuzzText(['1', '0', '.5', 's', 'm', 'h', '-', '9223372036854775807', 'ns'], 4), { maxKeys: 3 });

describe('eviction thresholds', () => {
  it('parseEvictionFlag accepts only known signals and < values', () => {
    check(
      fc.property(fuzzText([...EVICTION_SIGNALS, '<', '<=', '>', ',', ...THRESHOLD_PIECES], 8), (text) => {
        const r = attempt(() => parseEvictionFlag(text), ValueError);
        if (!r.ok) return;
        for (const [k, v] of Object.entries(r.value)) {
          expect(EVICTION_SIGNALS as readonly string[]).toContain(k);
          expect(v).not.toMatch(/^[<=>]/);
        }
      }),
      1000,
    );
  });

  it('buildThresholds reports rather than throws, and every threshold it builds is finite and in range', () => {
    check(
      fc.property(thresholdMap, thresholdMap, graceMap, thresholdMap, fc.boolean(), (hard, soft, softGracePeriod, minimumReclaim, pods) => {
        const { thresholds, problems, warnings } = buildThresholds({ hard, soft, softGracePeriod, minimumReclaim, enforceNodeAllocatable: pods ? ['pods'] : [] });
        expect(problems.every((p) => typeof p === 'string') && warnings.every((w) => typeof w === 'string')).toBe(true);
        for (const t of thresholds) {
          expect(EVICTION_SIGNALS as readonly string[]).toContain(t.signal);
          expect(Number.isFinite(t.gracePeriodMs) && t.gracePeriodMs >= 0).toBe(true);
          const { percentage, quantity } = t.value;
          if (percentage !== undefined) expect(Number.isFinite(percentage) && percentage >= 0 && percentage <= 1).toBe(true);
          if (quantity !== undefined) expect(Number.isFinite(quantity.value) && quantity.value > 0).toBe(true);
          if (t.minReclaim?.percentage !== undefined) expect(Number.isFinite(t.minReclaim.percentage) && t.minReclaim.percentage > 0).toBe(true);
          if (t.minReclaim?.quantity !== undefined) expect(Number.isFinite(t.minReclaim.quantity.value) && t.minReclaim.quantity.value >= 0).toBe(true);
        }
      }),
      1500,
    );
  });
});

describe('eviction thresholds on one signal', () => {
  it('a threshold and its minimum reclaim are finite and in range whatever the texts', () => {
    check(
      fc.property(fc.constantFrom(...EVICTION_SIGNALS), thresholdText, thresholdText, (sig, value, reclaim) => {
        const { thresholds } = buildThresholds({ hard: { [sig]: value }, soft: {}, softGracePeriod: {}, minimumReclaim: { [sig]: reclaim }, enforceNodeAllocatable: [] });
        for (const t of thresholds) {
          for (const v of [t.value, t.minReclaim]) {
            if (v?.percentage !== undefined) expect(Number.isFinite(v.percentage) && v.percentage >= 0).toBe(true);
            if (v?.quantity !== undefined) expect(Number.isFinite(v.quantity.value) && v.quantity.value >= 0).toBe(true);
          }
        }
      }),
      1500,
    );
  });
});

const MEMORY_PIECES = ['0', '1', '7', ':', ';', ',', '=', 'memory', 'hugepages-', '2Mi', '1Gi', '-1Gi', 'hugepages-2Mi', 'cpu', ' ', '4294967296', '2147483647', '2147483648', '99999999999999999999'];

/** `node:type=q[,type=q];...` built from parts, most of them valid. */
const memoryFlag = fc
  .array(
    fc.tuple(
      fc.oneof(fc.nat().map(String), numberText, fc.constantFrom('2147483647', '2147483648', '4294967296', ' 1 ', '')),
      fc.array(fc.tuple(fc.constantFrom('memory', 'hugepages-2Mi', 'hugepages-0', 'hugepages-', 'cpu', ' memory '), fc.oneof(fc.constantFrom('1Gi', '0', '-1Gi', ''), numberText)), { minLength: 1, maxLength: 3 }),
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((entries) => entries.map(([node, limits]) => `${node}:${limits.map(([t, q]) => `${t}=${q}`).join(',')}`).join(';'));

describe('reserved resources', () => {
  it('parseReservedMemory accepts only int32 NUMA nodes with reservable memory types and quantities', () => {
    check(
      fc.property(fc.oneof(fuzzText(MEMORY_PIECES, 10), memoryFlag, mutate(memoryFlag)), (text) => {
        const r = attempt(() => parseReservedMemory(text), ValueError);
        if (!r.ok) return;
        for (const { numaNode, limits } of r.value) {
          expect(Number.isInteger(numaNode) && numaNode >= 0 && numaNode <= 2 ** 31 - 1).toBe(true);
          expect(Object.keys(limits).length).toBeGreaterThan(0);
          for (const name of Object.keys(limits)) expect(name === 'memory' || name.startsWith('hugepages-')).toBe(true);
        }
      }),
      1500,
    );
  });

  it('validateReservedMemory, validateResourceList and validatePercentMap report rather than throw', () => {
    const limits = fc.dictionary(fc.oneof(fc.constantFrom('memory', 'hugepages-2Mi', 'hugepages-', 'cpu', 'pid', '__proto__'), fc.string()), fuzzText(['1', 'Gi', '-', '%', '0', '.5', '101', '50%'], 4), { maxKeys: 3 });
    const node = fc.oneof(fc.nat(), fc.double(), fc.constantFrom(Number.NaN, -1, 2 ** 31, Number.MAX_VALUE));
    check(
      fc.property(fc.array(fc.record({ numaNode: node, limits }), { maxLength: 3 }), limits, (list, map) => {
        expect(Array.isArray(validateReservedMemory(list as ReservedMemory[]))).toBe(true);
        expect(Array.isArray(validateResourceList(map, ['cpu', 'memory', 'ephemeral-storage', 'pid']))).toBe(true);
        expect(Array.isArray(validatePercentMap(map))).toBe(true);
        for (const { numaNode } of list) {
          if (!Number.isInteger(numaNode) || numaNode < 0 || numaNode > 2 ** 31 - 1) expect(validateReservedMemory(list as ReservedMemory[])).not.toEqual([]);
        }
      }),
      1000,
    );
  });
});

describe('TLS names', () => {
  const known = [...TLS_VERSIONS, ...SECURE_CIPHERS, ...INSECURE_CIPHERS];
  const tlsName = fc.oneof(fc.constantFrom(...known, '', 'VersionTLS14', 'tls12', '__proto__'), fuzzText(['TLS_', 'AES_128', 'GCM', '_SHA256', 'Version', 'TLS13'], 4));

  it('checkTls reports rather than throws; the converters accept exactly what checkTls passes', () => {
    check(
      fc.property(tlsName, fc.array(tlsName, { maxLength: 4 }), (version, suites) => {
        const { problems } = checkTls(version, suites);
        const v = attempt(() => toNodeTlsVersion(version), ValueError);
        expect(v.ok).toBe(version === '' || (TLS_VERSIONS as readonly string[]).includes(version));
        const c = attempt(() => toOpenSslCiphers(suites), ValueError);
        expect(c.ok).toBe(suites.every((s) => SECURE_CIPHERS.includes(s) || INSECURE_CIPHERS.includes(s)));
        if (problems.length === 0) expect(v.ok && c.ok).toBe(true);
      }),
    );
  });
});

describe('flag-sized structured values', () => {
  it('taints, node labels, eviction, reserved memory and thresholds answer 128 KiB inputs without super-linear work', () => {
    checkLong(['a', 'a=b:NoSchedule,', 'memory.available<1Gi,', '0:memory=1Gi;', '=', ':', ',', 'a.', '1e3', '%'], 'structured parsers', (text) => {
      attempt(() => parseTaints(text), ValueError);
      validateNodeLabels(parseNodeLabels(text));
      attempt(() => parseEvictionFlag(text), ValueError);
      attempt(() => parseReservedMemory(text), ValueError);
      buildThresholds({ hard: { 'memory.available': text }, soft: {}, softGracePeriod: {}, minimumReclaim: { 'memory.available': text }, enforceNodeAllocatable: [] });
      validateTaint({ key: text, value: text, effect: text });
    });
  });
});
