// The test runner tells the truth: a suite that fails by itself (a hook) is counted as a failure, a
// committed focus or skip is found, coverage below the floor is named, and files named to it (the
// image's suites) get the same guards. Runs node's own test runner with this project's reporter, and
// scripts/test.mjs itself, on small files written here.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { uncovered } from '../../helpers/uncovered-env'
import { ROOT } from '../../helpers/root'

const REPORTER = join(ROOT, 'scripts', 'count-reporter.mjs')
const RUNNER = join(ROOT, 'scripts', 'test.mjs')

interface Guards {
  focusOrSkipMarkers(files: string[]): string[]
  coverageBelow(total: Record<string, { pct: number }>, floor?: Record<string, number>): string[]
  timeLimitOf(source: string, fallbackMs: number): number
  mergeCounts(texts: (string | null)[]): Counts | null
  mergeJunit(texts: string[]): string
}
const guards = (): Promise<Guards> => import(join(ROOT, 'scripts', 'test-guards.mjs')) as Promise<Guards>

/** Not as a child of this runner (NODE_TEST_CONTEXT would make it report to it), and without coverage. */
function runnerEnv(): NodeJS.ProcessEnv {
  const env = uncovered()
  delete env.NODE_TEST_CONTEXT
  return env
}

function counts(source: string): { passed: number; failed: number; skipped: number } {
  const file = join(mkdtempSync(join(tmpdir(), 'runner-')), 'case.test.mjs')
  writeFileSync(file, source)
  const r = spawnSync(
    process.execPath,
    ['--test', `--test-reporter=${REPORTER}`, '--test-reporter-destination=stdout', file],
    { encoding: 'utf8', env: runnerEnv() }
  )
  const c = JSON.parse(r.stdout.trim().split('\n').pop()!) as Counts
  return { passed: c.passed, failed: c.failed, skipped: c.skipped }
}

interface Counts {
  passed: number
  failed: number
  skipped: number
  slowest: [string, number][]
}

const HEAD = "import { describe, it, after } from 'node:test'\n"

test('a failing after hook inside a suite counts as a failure, beside the test that passed', () => {
  assert.deepEqual(
    counts(`${HEAD}describe('s', () => { after(() => { throw new Error('hook') }); it('t', () => {}) })\n`),
    {
      passed: 1,
      failed: 1,
      skipped: 0
    }
  )
})

test('a failing test inside a suite counts once, not again for its suite', () => {
  assert.deepEqual(
    counts(`${HEAD}describe('s', () => { it('t', () => { throw new Error('x') }); it('u', () => {}) })\n`),
    {
      passed: 1,
      failed: 1,
      skipped: 0
    }
  )
})

test('the counts name the slowest files: each at most once, five at most, the whole path', () => {
  const dir = mkdtempSync(join(tmpdir(), 'runner-'))
  const files = [1, 2, 3, 4, 5, 6].map((k) => {
    const file = join(dir, `f${k}.test.mjs`)
    writeFileSync(
      file,
      `${HEAD}describe('s', () => { it('t', () => {}) })\nimport { test } from 'node:test'\ntest('u', () => {})\n`
    )
    return file
  })
  const r = spawnSync(
    process.execPath,
    ['--test', `--test-reporter=${REPORTER}`, '--test-reporter-destination=stdout', ...files],
    {
      encoding: 'utf8',
      env: runnerEnv()
    }
  )
  const c = JSON.parse(r.stdout.trim().split('\n').pop()!) as Counts
  assert.equal(c.passed, 12)
  assert.equal(c.slowest.length, 5)
  assert.equal(new Set(c.slowest.map(([f]) => f)).size, 5)
  for (const [f, ms] of c.slowest) assert.ok(files.includes(f) && Number.isInteger(ms) && ms >= 0, `${f} ${ms}`)
})

test('a committed focus or skip is found with its file and line; a clean file passes', async () => {
  const { focusOrSkipMarkers } = await guards()
  const dir = mkdtempSync(join(tmpdir(), 'markers-'))
  const dirty = join(dir, 'dirty.test.js')
  const clean = join(dir, 'clean.test.js')
  // Spelled in pieces so that this file itself carries no marker.
  const dot = (name: string): string => ['test', name].join('.')
  writeFileSync(dirty, `const a = 1\n${dot('only')}('x', () => {})\ntest('y', { ${'sk' + 'ip'}: true }, () => {})\n`)
  writeFileSync(clean, "test('x', { timeout: 1000 }, () => {})\nconst skipped = 0\n")
  assert.deepEqual(focusOrSkipMarkers([dirty, clean]), [
    `${dirty}:2: ${dot('only')}('x', () => {})`,
    `${dirty}:3: test('y', { ${'sk' + 'ip'}: true }, () => {})`
  ])
})

test('coverage below the floor is named, kind by kind', async () => {
  const { coverageBelow } = await guards()
  const total = { lines: { pct: 93.2 }, branches: { pct: 88 }, functions: { pct: 95 } }
  assert.deepEqual(coverageBelow(total), ['lines 93.2% < 93.5%'])
  assert.deepEqual(coverageBelow({ ...total, lines: { pct: 95 } }), [])
})

test("a file's own time limit: its first comment line names it, in seconds; otherwise the runner's", async () => {
  const { timeLimitOf } = await guards()
  const compiled = '"use strict";\nObject.defineProperty(exports, "__esModule", { value: true });\n'
  assert.equal(timeLimitOf(`${compiled}// time limit: 480 s: the gate runs twice\n// more\n`, 120_000), 480_000)
  assert.equal(timeLimitOf('// time limit: 300 s: why\n', 120_000), 300_000)
  assert.equal(timeLimitOf(`${compiled}// what this file tests\n// time limit: 480 s: too late\n`, 120_000), 120_000)
  assert.equal(timeLimitOf('test("x", () => {})\n', 90_000), 90_000)
})

test('the counts and JUnit reports of several groups of files are one run', async () => {
  const { mergeCounts, mergeJunit } = await guards()
  const a = JSON.stringify({
    passed: 3,
    failed: 1,
    skipped: 0,
    slowest: [
      ['a', 50],
      ['b', 10]
    ]
  })
  const b = JSON.stringify({
    passed: 2,
    failed: 0,
    skipped: 1,
    slowest: [
      ['c', 90],
      ['d', 5],
      ['e', 4],
      ['f', 3]
    ]
  })
  assert.deepEqual(mergeCounts([a, null, b]), {
    passed: 5,
    failed: 1,
    skipped: 1,
    slowest: [
      ['c', 90],
      ['a', 50],
      ['b', 10],
      ['d', 5],
      ['e', 4]
    ]
  })
  assert.equal(mergeCounts([null, '']), null)
  const doc = (suite: string): string =>
    `<?xml version="1.0" encoding="utf-8"?>\n<testsuites>\n\t<testsuite name="${suite}"/>\n</testsuites>\n`
  const merged = mergeJunit([doc('one'), '', doc('two')])
  assert.equal(merged.match(/<testsuites>/g)?.length, 1)
  assert.deepEqual(
    [...merged.matchAll(/testsuite name="(\w+)"/g)].map((m) => m[1]),
    ['one', 'two']
  )
})

/**
 * scripts/test.mjs on files named to it (`--files`), as scripts/image/test.sh runs it: without c8 (a
 * run with it would clear this run's coverage/), under a name of its own so that its counts do not
 * take the place of the run this test is part of, and without CI (no JUnit report).
 */
function runNamed(...files: string[]): { status: number | null; stdout: string; stderr: string; counts: string } {
  const name = `runner-test-${process.pid}`
  const counts = join(ROOT, 'reports', `counts-${name}.json`)
  const env = runnerEnv()
  delete env.CI
  try {
    const r = spawnSync(process.execPath, [RUNNER, '--no-coverage', '--name', name, '--files', ...files], {
      cwd: ROOT,
      encoding: 'utf8',
      env
    })
    return {
      status: r.status,
      stdout: r.stdout,
      stderr: r.stderr,
      counts: existsSync(counts) ? readFileSync(counts, 'utf8') : ''
    }
  } finally {
    rmSync(counts, { force: true })
  }
}

const NAMED_HEAD = "import { test } from 'node:test'\nimport { writeFileSync } from 'node:fs'\n"

test('named files keep the focus/skip guard: a focus or a skip in one is refused before anything runs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'named-'))
  const ran = join(dir, 'ran')
  const clean = join(dir, 'clean.suite.mjs')
  writeFileSync(clean, `${NAMED_HEAD}test('c', () => writeFileSync(${JSON.stringify(ran)}, 'ran'))\n`)
  // Spelled in pieces so that this file itself carries no marker.
  for (const marker of [['test', 'only'].join('.'), ['test', 'skip'].join('.')]) {
    const dirty = join(dir, 'dirty.suite.mjs')
    writeFileSync(dirty, `${NAMED_HEAD}${marker}('d', () => writeFileSync(${JSON.stringify(ran)}, 'ran'))\n`)
    const r = runNamed(clean, dirty)
    assert.equal(r.status, 1, marker)
    assert.match(r.stderr, /a committed focus or skip runs less than the whole suite/)
    assert.ok(r.stderr.includes(`${dirty}:3: ${marker}('d'`), r.stderr)
    assert.equal(existsSync(ran), false, `${marker}: a test ran`)
  }
})

test('a named file that does not exist fails the run instead of running nothing; so does naming none', () => {
  const dir = mkdtempSync(join(tmpdir(), 'named-'))
  const there = join(dir, 'there.suite.mjs')
  writeFileSync(there, `${NAMED_HEAD}test('t', () => {})\n`)
  const missing = join(dir, 'missing.suite.js')
  const r = runNamed(there, missing)
  assert.equal(r.status, 1)
  assert.equal(r.stderr.trim(), `--files names files that do not exist: ${missing}`)
  assert.equal(r.stdout, '')
  const none = runNamed()
  assert.equal(none.status, 1)
  assert.equal(none.stderr.trim(), '--files names no file')
})

test('named files run under the count line, in counts of their own; a skip at run time fails the run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'named-'))
  const passing = join(dir, 'passing.suite.mjs')
  writeFileSync(passing, `${NAMED_HEAD}test('a', () => {})\ntest('b', () => {})\n`)
  const ok = runNamed(passing)
  assert.equal(ok.status, 0, ok.stdout + ok.stderr)
  assert.match(ok.stdout, /\ntests: 2 passed, 0 failed, 0 skipped\n$/)
  assert.deepEqual((JSON.parse(ok.counts) as Counts).passed, 2)
  // A skip decided while running carries no marker for the focus/skip guard; the counts catch it.
  const skipping = join(dir, 'skipping.suite.mjs')
  writeFileSync(skipping, `${NAMED_HEAD}test('a', () => {})\ntest('s', (t) => { t.skip('not here') })\n`)
  const skipped = runNamed(passing, skipping)
  assert.equal(skipped.status, 1)
  assert.match(skipped.stdout, /\ntests: 3 passed, 0 failed, 1 skipped \(a skip fails the run\)\n$/)
})

test('a named file runs under its own time limit and fails when it overruns it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'named-'))
  const hanging = join(dir, 'hanging.suite.mjs')
  writeFileSync(
    hanging,
    `// time limit: 1 s: a fixture that waits far longer\n${NAMED_HEAD}test('h', () => new Promise((r) => setTimeout(r, 600_000)))\n`
  )
  const r = runNamed(hanging)
  assert.equal(r.status, 1)
  assert.match(r.stdout, /\ntests: 0 passed, 1 failed, 0 skipped\n$/)
})
