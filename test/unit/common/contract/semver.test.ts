// The one order of microservice versions (the dispatcher's newest version, the upload check): SemVer
// 2.0.0 §11 precedence for valid SemVer, checked against the spec's own examples and against npm's
// semver package; a total, deterministic order for what authors write that is not SemVer.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { compare as semverCompare } from 'semver'
import { compareVersions } from '../../../../src/common/contract/semver'

/** Every pair of a list in increasing order compares as their positions do. */
function assertOrdered(ordered: string[]): void {
  for (let i = 0; i < ordered.length; i++)
    for (let j = 0; j < ordered.length; j++)
      assert.equal(compareVersions(ordered[i]!, ordered[j]!), Math.sign(i - j), `${ordered[i]} vs ${ordered[j]}`)
}

/** A seeded shuffle, so that a failure repeats. */
function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items]
  let s = seed
  for (let k = out.length - 1; k > 0; k--) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0
    const j = s % (k + 1)
    ;[out[k], out[j]] = [out[j]!, out[k]!]
  }
  return out
}

/** The SemVer spec's own example chain (§11.4), lowest first. */
const SPEC_CHAIN = [
  '1.0.0-alpha',
  '1.0.0-alpha.1',
  '1.0.0-alpha.beta',
  '1.0.0-beta',
  '1.0.0-beta.2',
  '1.0.0-beta.11',
  '1.0.0-rc.1',
  '1.0.0'
]

test("the SemVer spec's own example chain, in §11's order", () => {
  assertOrdered(SPEC_CHAIN)
  assertOrdered(['1.0.0', '2.0.0', '2.1.0', '2.1.1'])
})

test('major, minor and patch compare as numbers, of any size', () => {
  assert.equal(compareVersions('1.10.0', '1.9.2'), 1)
  assert.equal(compareVersions('1.9.2', '1.10.0'), -1)
  assertOrdered(['1.0.0-rc.9007199254740993', '1.0.0-rc.9007199254740994', '1.0.0-rc.90071992547409930'])
  assertOrdered(['9007199254740993.0.0', '9007199254740994.0.0', '90071992547409930.0.0'])
})

test('build metadata is ignored: builds of one version are the same version', () => {
  assert.equal(compareVersions('1.0.0+b2', '1.0.0'), 0)
  assert.equal(compareVersions('1.0.0', '1.0.0+b2'), 0)
  assert.equal(compareVersions('1.0.0+build.7', '1.0.0+build.12'), 0)
  assert.equal(compareVersions('1.0.0-rc.1+b2', '1.0.0-rc.1'), 0)
  assert.equal(compareVersions('1.0.0-rc.1+b2', '1.0.0'), -1)
  assert.equal(compareVersions('1.0.0+b2', '1.0.0-rc.1'), 1)
})

test('pre-release identifiers: hyphens belong to them, numeric before alphanumeric, ASCII order', () => {
  assertOrdered(['1.0.0-1', '1.0.0-A', '1.0.0-Z', '1.0.0-a', '1.0.0-rc', '1.0.0-rc.1', '1.0.0-rc.1.0', '1.0.0-rc-1'])
  assertOrdered(['1.0.0-0.3.7', '1.0.0-x.7.z.92', '1.0.0-x-y-z.--'])
})

test('versions that are not SemVer: numeric parts as numbers, a missing part as 0, an all-digit part before any other, the rest as text', () => {
  assertOrdered([
    '0.9',
    '1.0.0-alpha',
    '1.0.0-rc.2',
    '1.0.0-rc.10',
    '1.0.0',
    '1.0.1',
    '1.2',
    '1.10.0',
    '2',
    '10.0.0',
    'v3'
  ])
  assert.equal(compareVersions('1.0', '1.0.0'), 0)
  assert.equal(compareVersions('1', '1.0.0+b1'), 0)
  assert.equal(compareVersions('1.0.a', '1.0.b'), -1)
  assert.equal(compareVersions('1.0.9', '1.0.a'), -1)
  // A date is a pre-release of its year: months in order, before the bare year.
  assertOrdered(['2023-12', '2024-05', '2024-11', '2024'])
})

test('a total order: a shuffled set sorts to one order, whatever the shuffle, and agrees with npm semver', () => {
  const expected = [
    '0.0.1',
    '0.1.0',
    '1.0.0-0',
    ...SPEC_CHAIN,
    '1.0.1-rc.1',
    '1.0.1',
    '1.2.3',
    '1.9.2',
    '1.10.0',
    '2.0.0-rc.1',
    '2.0.0',
    '10.0.0'
  ]
  for (let i = 0; i < expected.length; i++)
    for (let j = 0; j < expected.length; j++)
      assert.equal(
        compareVersions(expected[i]!, expected[j]!),
        semverCompare(expected[i]!, expected[j]!),
        `${expected[i]} vs ${expected[j]}`
      )
  // Not SemVer among them: the order is still one order (antisymmetric and transitive, or sorting
  // a shuffle would depend on the shuffle).
  const mixed = [
    ...expected.slice(0, expected.indexOf('1.0.1') + 1),
    '1.0.1.5',
    '1.2',
    '1.2.3',
    '1.9.2',
    '1.9.x',
    '1.10.0',
    '2.0.0-rc.1',
    '2.0.0',
    '10.0.0',
    '10.0.0.1',
    'latest'
  ]
  for (let seed = 1; seed <= 50; seed++) {
    assert.deepEqual(shuffled(expected, seed).sort(compareVersions), expected, `seed ${seed}`)
    assert.deepEqual(shuffled(mixed, seed).sort(compareVersions), mixed, `mixed, seed ${seed}`)
  }
  for (const a of mixed)
    for (const b of mixed) {
      assert.equal(compareVersions(a, b), -compareVersions(b, a) || 0, `${a} vs ${b}`)
      for (const c of mixed)
        if (compareVersions(a, b) <= 0 && compareVersions(b, c) <= 0)
          assert.ok(compareVersions(a, c) <= 0, `${a} <= ${b} <= ${c}`)
    }
})

test('the edges of each rule (each case fails on a mutation of the rule that Stryker made survive)', () => {
  // A pre-release identifier is numeric only when it is all digits; numeric ones compare as numbers,
  // leading zeros dropped, in either argument.
  assertOrdered(['1.0.0-2', '1.0.0-10'])
  assertOrdered(['1.0.0-10', '1.0.0-00a'])
  assert.equal(compareVersions('1.0.0-001', '1.0.0-1'), 0)
  assert.equal(compareVersions('1.0.0-1', '1.0.0-001'), 0)
  // A numeric identifier before any other, also one that sorts first as text ('-' < '0') or is longer.
  assertOrdered(['1.0.0-1', '1.0.0--'])
  assertOrdered(['1.0.0-10', '1.0.0-A'])
  // Versions any author may write (the package config asks only for a non-empty string): all build
  // metadata is no version at all, and all pre-release is a pre-release of nothing.
  assert.equal(compareVersions('+b1', '+b2'), 0)
  assertOrdered(['-9', '-10'])
})
