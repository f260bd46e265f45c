// The mutation runs keep their promises (scripts/mutation.mjs, docs/development.md "Mutation testing"):
// every module's files exist and have a baseline and a result file, every equivalent mutant has its
// reason, and a module whose score falls below its baseline or the floor fails the run.
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../../helpers/root'

interface Counts {
  killed: number
  survived: number
  equivalent: number
  noCoverage: number
  timeout: number
  score: number
  /** filesDigest of the module's files when the counts were measured. */
  files?: string
}
interface Result {
  fileName: string
  location: { start: { line: number; column: number } }
  mutatorName: string
  replacement: string
  status: string
}
interface Summary {
  FLOOR: number
  mutantKey(r: Result, root?: string): string
  keyParts(key: string): { file: string; line: string; change: string }
  linesOf(path: string): string[]
  summarise(results: Result[], equivalent: Record<string, string>, root?: string): Counts
  verdict(name: string, counts: Counts, base: Counts | undefined, raising?: boolean): string[]
  filesDigest(module: { mutate: string[]; tests: string[] }, root?: string): string
}
const summary = (): Promise<Summary> => import(join(ROOT, 'scripts', 'mutation-summary.mjs')) as Promise<Summary>

const json = <T>(file: string): T => JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as T
const { modules, raising } = json<{
  modules: Record<string, { mutate: string[]; tests: string[] }>
  raising: string[]
}>('test/mutation/modules.json')
const baseline = json<{ modules: Record<string, Counts> }>('test/mutation/baseline.json').modules
const equivalent = json<{ mutants: Record<string, string> }>('test/mutation/equivalent.json').mutants

test('every module names files that exist, and has a baseline and a result file for incremental runs', () => {
  for (const [name, m] of Object.entries(modules)) {
    for (const f of [...m.mutate, ...m.tests]) assert.ok(existsSync(join(ROOT, f)), `${name}: ${f} does not exist`)
    assert.ok(m.mutate.length > 0 && m.tests.length > 0, name)
    assert.ok(baseline[name] !== undefined, `${name} has no baseline: npm run test:mutation -- --update`)
    assert.match(baseline[name].files ?? '', /^[0-9a-f]{64}$/, `${name}: the baseline names no files' digest`)
    assert.ok(existsSync(join(ROOT, 'test', 'mutation', 'incremental', `${name}.json`)), `${name}: no result file`)
  }
  assert.deepEqual(Object.keys(baseline).sort(), Object.keys(modules).sort(), 'a baseline for a module not listed')
})

test("a module's digest changes with any of its files' contents, names or list, and not with their order", async () => {
  const { filesDigest } = await summary()
  const dir = mkdtempSync(join(tmpdir(), 'digest-'))
  try {
    writeFileSync(join(dir, 'a.ts'), 'export const a = 1\n')
    writeFileSync(join(dir, 'a.test.ts'), 'test\n')
    writeFileSync(join(dir, 'a.spec.ts'), 'test\n')
    const first = filesDigest({ mutate: ['a.ts'], tests: ['a.test.ts'] }, dir)
    assert.equal(filesDigest({ mutate: ['a.ts'], tests: ['a.test.ts'] }, dir), first)
    assert.equal(
      filesDigest({ mutate: ['a.ts'], tests: ['a.spec.ts', 'a.test.ts'] }, dir),
      filesDigest({ mutate: ['a.ts'], tests: ['a.test.ts', 'a.spec.ts'] }, dir)
    )
    assert.notEqual(
      filesDigest({ mutate: ['a.test.ts'], tests: ['a.ts'] }, dir),
      first,
      'a file moved to the other list'
    )
    assert.notEqual(
      filesDigest({ mutate: ['a.spec.ts', 'a.test.ts'], tests: [] }, dir),
      filesDigest({ mutate: ['a.spec.ts'], tests: ['a.test.ts'] }, dir),
      'the same files in the same order, one in the other list'
    )
    assert.notEqual(filesDigest({ mutate: ['a.ts'], tests: ['a.spec.ts'] }, dir), first, 'another name, same contents')
    writeFileSync(join(dir, 'a.test.ts'), 'test \n')
    assert.notEqual(filesDigest({ mutate: ['a.ts'], tests: ['a.test.ts'] }, dir), first, 'a test file changed')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('the modules below the floor are exactly those still being raised; every equivalent mutant is in a listed file, with its reason', async () => {
  const { FLOOR, keyParts, linesOf } = await summary()
  // The list only shrinks: a module that reaches the floor leaves it, and then holds the floor.
  assert.deepEqual(
    Object.keys(baseline)
      .filter((name) => baseline[name]!.score < FLOOR)
      .sort(),
    [...raising].sort()
  )
  const files = new Set(Object.values(modules).flatMap((m) => m.mutate))
  for (const [key, reason] of Object.entries(equivalent)) {
    const { file, line } = keyParts(key)
    assert.ok(files.has(file), `${key}: not a mutated file`)
    // Keyed by the line's text: an entry whose line has changed is stale, and its reason must be thought again.
    assert.ok(linesOf(join(ROOT, file)).includes(line), `${key}: no such line in ${file} any more`)
    assert.ok(reason.length >= 20, `${key}: say why it is equivalent`)
  }
})

// A file of 30 numbered lines, in a folder of its own as the root the keys are relative to.
const fixture = mkdtempSync(join(tmpdir(), 'mutation-keys-'))
mkdirSync(join(fixture, 'src'))
writeFileSync(join(fixture, 'src', 'a.ts'), Array.from({ length: 30 }, (_, k) => `  line ${k + 1}`).join('\n'))
after(() => rmSync(fixture, { recursive: true, force: true }))
const at = (line: number, status: string, replacement = 'x'): Result => ({
  fileName: join(fixture, 'src', 'a.ts'),
  location: { start: { line, column: 3 } },
  mutatorName: 'EqualityOperator',
  replacement,
  status
})

test('the score counts killed and timed-out mutants of all but the equivalents; errors count in none', async () => {
  const { summarise, mutantKey } = await summary()
  const results = [
    ...Array.from({ length: 8 }, (_, k) => at(k, 'Killed')),
    at(20, 'Timeout'),
    at(21, 'Survived'),
    at(22, 'Survived', 'y'),
    at(23, 'NoCoverage'),
    at(24, 'CompileError'),
    at(25, 'RuntimeError')
  ]
  assert.equal(mutantKey(results[10]!, fixture), 'src/a.ts | line 22 | EqualityOperator → y')
  const c = summarise(results, { 'src/a.ts | line 22 | EqualityOperator → y': 'the same either way' }, fixture)
  assert.deepEqual(c, { killed: 8, survived: 1, equivalent: 1, noCoverage: 1, timeout: 1, score: 81.8 })
})

test('a module below its baseline, or below the floor, fails the run; at or above both it holds', async () => {
  const { verdict } = await summary()
  const base = { killed: 90, survived: 5, equivalent: 0, noCoverage: 0, timeout: 0, score: 94.7 }
  assert.deepEqual(verdict('semver', { ...base, killed: 89, survived: 6, score: 93.6 }, base), [
    'semver: 93.6 % killed, below its baseline of 94.7 %'
  ])
  assert.deepEqual(verdict('semver', { ...base, score: 84.9 }, undefined), [
    'semver: 84.9 % killed, below the floor of 85 %'
  ])
  assert.deepEqual(verdict('semver', { ...base, score: 84.9 }, { ...base, score: 80 }, true), [])
  assert.deepEqual(verdict('semver', { ...base, score: 79.9 }, { ...base, score: 80 }, true), [
    'semver: 79.9 % killed, below its baseline of 80 %'
  ])
  assert.deepEqual(verdict('semver', base, base), [])
  assert.deepEqual(verdict('semver', { ...base, score: 99 }, base), [])
})
