// Runs every compiled test file with node's test runner (Node 20 takes no globs), under c8 so that
// coverage includes the microservice processes the integration tests start (they inherit
// NODE_V8_COVERAGE). Options:
//   --junit <file>     also write a JUnit report (CI=true writes reports/junit.xml)
//   --no-coverage      run without c8
//   --name <name>      a run of its own beside npm test's: its counts go to reports/counts-<name>.json
//                      and (CI=true) its JUnit report to reports/junit-<name>.xml
//   --files <file> ... exactly these test files, each of which must exist: the image's suites
//                      (scripts/image/test.sh), whose files npm test leaves out by name, under the
//                      same guards as npm test's
//   <text> ...         only the test files whose path contains one of the texts
// A test file that runs longer than its limit (TEST_TIMEOUT_MS, default 120 s, or the longer one its
// first comment line names: `// time limit: 480 s: why`) fails instead of hanging the run. A
// committed focus or skip, a skipped test, or (on a whole run with coverage) coverage below the floor
// in scripts/test-guards.mjs fails the run too.
import { readdirSync, statSync, mkdirSync, rmSync, readFileSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, dirname, relative, resolve } from 'node:path'
import { spawnSync } from 'node:child_process'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'
import { focusOrSkipMarkers, coverageBelow, timeLimitOf, mergeCounts, mergeJunit } from './test-guards.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    junit: { type: 'string' },
    'no-coverage': { type: 'boolean', default: false },
    name: { type: 'string' },
    files: { type: 'boolean', default: false }
  }
})
if (values.name !== undefined && !/^[\w.-]+$/.test(values.name)) {
  console.error(`--name ${values.name}: letters, digits, '.', '_' and '-' only (it names files under reports/)`)
  process.exit(1)
}

const files = []
if (values.files) {
  // A named file that is not there fails the run rather than leaving it with nothing to run.
  const missing = positionals.filter((p) => !existsSync(p) || !statSync(p).isFile())
  if (positionals.length === 0 || missing.length > 0) {
    console.error(
      `--files names ${positionals.length === 0 ? 'no file' : `files that do not exist: ${missing.join(', ')}`}`
    )
    process.exit(1)
  }
  files.push(...positionals.map((p) => resolve(p)))
} else {
  ;(function walk(dir) {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name)
      if (statSync(p).isDirectory()) {
        if (name !== 'fixtures' && name !== 'helpers' && name !== 'sample') walk(p)
      } else if (name.endsWith('.test.js') && (positionals.length === 0 || positionals.some((o) => p.includes(o))))
        files.push(p)
    }
  })(join(root, 'dist', 'test'))
}
if (files.length === 0) {
  console.error('no test files found under dist/test')
  process.exit(1)
}
const markers = focusOrSkipMarkers(files)
if (markers.length > 0) {
  console.error(`a committed focus or skip runs less than the whole suite; remove it:\n${markers.join('\n')}`)
  process.exit(1)
}

// A file may name a longer limit than the runner's in a first-line comment, with its reason (Node 20
// applies the limit to each file as a whole); files run in groups of one limit, one after another.
const defaultLimit = Number(process.env.TEST_TIMEOUT_MS ?? '120000')
const groups = new Map()
for (const f of files) {
  const ms = timeLimitOf(readFileSync(f, 'utf8'), defaultLimit)
  groups.set(ms, [...(groups.get(ms) ?? []), f])
}
// CI=true (as CI runs) writes a JUnit report without changing the README's test command.
const suffix = values.name === undefined ? '' : `-${values.name}`
const junit = values.junit ?? (process.env.CI === 'true' ? join(root, 'reports', `junit${suffix}.xml`) : undefined)
if (junit !== undefined) mkdirSync(dirname(junit), { recursive: true })
const countsFile = join(root, 'reports', `counts${suffix}.json`)
mkdirSync(dirname(countsFile), { recursive: true })
rmSync(countsFile, { force: true })

// The Java host (and, on a fresh machine, the JDK and Debian's jars it needs) before any test file: they
// run in parallel and several build Java packages, and the README's steps must print nothing on stderr,
// which a first install does. The image's suites (--files) run no Java.
if (!values.files) {
  const java = spawnSync('bash', [join(root, 'scripts', 'ensure-java-host.sh')], {
    stdio: ['ignore', 'ignore', 'inherit']
  })
  if (java.status !== 0) {
    console.error('scripts/ensure-java-host.sh failed: the Java host is needed by the tests of Java packages')
    process.exit(1)
  }
}

// Every temporary directory a test makes (platforms, deployments, zips, heap snapshots) goes under
// one directory of this run, removed afterwards whatever happened.
const scratch = mkdtempSync(join(tmpdir(), 'invocation-gateway-tests-'))
const reports = join(root, 'coverage')
if (!values['no-coverage']) rmSync(reports, { recursive: true, force: true })
const parts = []
let runStatus = 0
for (const [k, [ms, group]] of [...groups].sort((a, b) => a[0] - b[0]).entries()) {
  const part = { counts: `${countsFile}.${k}`, junit: junit === undefined ? undefined : `${junit}.${k}` }
  parts.push(part)
  const nodeArgs = ['--test', `--test-timeout=${ms}`, '--test-reporter=spec', '--test-reporter-destination=stdout']
  if (part.junit !== undefined) nodeArgs.push('--test-reporter=junit', `--test-reporter-destination=${part.junit}`)
  nodeArgs.push(
    `--test-reporter=${join(root, 'scripts', 'count-reporter.mjs')}`,
    `--test-reporter-destination=${part.counts}`,
    ...group
  )
  if (groups.size > 1) console.log(`${group.length} test files with a limit of ${ms / 1000} s each`)
  // Under c8 each group adds to the same coverage (--clean on the first only); the last report holds all.
  const args = values['no-coverage']
    ? nodeArgs
    : [
        join(root, 'node_modules', 'c8', 'bin', 'c8.js'),
        `--clean=${k === 0}`,
        '--all',
        '--src',
        'src',
        '--include',
        'src/**',
        '--include',
        'dist/src/**',
        '--exclude',
        '**/generated/**',
        '--reporter',
        'json-summary',
        '--reports-dir',
        reports,
        process.execPath,
        ...nodeArgs
      ]
  const r = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: root, env: { ...process.env, TMPDIR: scratch } })
  runStatus = runStatus || (r.status ?? 1)
}
rmSync(scratch, { recursive: true, force: true })
const merged = mergeCounts(parts.map((p) => (existsSync(p.counts) ? readFileSync(p.counts, 'utf8') : null)))
if (merged !== null) writeFileSync(countsFile, JSON.stringify(merged) + '\n')
if (junit !== undefined)
  writeFileSync(junit, mergeJunit(parts.map((p) => (existsSync(p.junit) ? readFileSync(p.junit, 'utf8') : ''))))
for (const p of parts) for (const f of [p.counts, p.junit]) if (f !== undefined) rmSync(f, { force: true })

// Coverage first, then the counts: the test summary closes the log.
const summary = join(root, 'coverage', 'coverage-summary.json')
if (!values['no-coverage'] && existsSync(summary)) {
  const t = JSON.parse(readFileSync(summary, 'utf8')).total
  const pct = (k) => `${t[k].pct}%`
  console.log(
    `coverage of src/: lines ${pct('lines')}, branches ${pct('branches')}, functions ${pct('functions')} (coverage/coverage-summary.json)`
  )
}
let status = runStatus
// A guard whose input is missing fails the run rather than switching itself off.
if (!values['no-coverage'] && !existsSync(summary)) {
  console.log('no coverage summary was written (coverage/coverage-summary.json): the coverage floor cannot be checked')
  status = status || 1
}
if (!values['no-coverage'] && positionals.length === 0 && existsSync(summary)) {
  const below = coverageBelow(JSON.parse(readFileSync(summary, 'utf8')).total)
  if (below.length > 0) {
    console.log(`coverage below the floor (scripts/test-guards.mjs): ${below.join(', ')}`)
    status = status || 1
  }
}
if (!existsSync(countsFile)) {
  console.log(`no test counts were written (${relative(root, countsFile)}): skips cannot be checked`)
  status = status || 1
} else {
  const c = JSON.parse(readFileSync(countsFile, 'utf8'))
  if (c.skipped > 0) status = status || 1
  if (c.slowest.length > 0)
    console.log(
      `slowest test files: ${c.slowest.map(([f, ms]) => `${relative(join(root, 'dist'), f)} ${(ms / 1000).toFixed(1)} s`).join(', ')}`
    )
  console.log(
    `tests: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped${c.skipped > 0 ? ' (a skip fails the run)' : ''}`
  )
}
process.exit(status)
