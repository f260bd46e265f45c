// npm run test:mutation: Stryker on the modules of test/mutation/modules.json, one run per module (its
// source files mutated, its test files run by the tap runner through tsx), incremental: each module's
// result file (test/mutation/incremental/NAME.json, committed) lets a run after a small change test only
// the mutants it touches. Writes reports/mutation/NAME.html (Stryker's report), reports/mutation/summary.json
// (killed / survived / no coverage / timeout per module), and compares each module's score with
// test/mutation/baseline.json. Options:
//   --modules a,b   only these modules
//   --changed       only the modules whose files (sources or tests) differ from those the baseline's
//                   counts were measured on: each module's entry keeps their digest (what CI and npm
//                   test run)
//   --update        write the scores of this run, and the digest of the files measured, into the baseline
// Exit 1 when a module's score (survivors listed in test/mutation/equivalent.json left out) falls below
// its baseline, or below the floor of 85 % unless the module is one still being raised, or when Stryker
// could not run its tests. docs/development.md, "Mutation testing".
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { filesDigest, mutantKey, summarise, verdict } from './mutation-summary.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
// Stryker reads its files and writes its reports relative to the working directory.
process.chdir(root)
const { values } = parseArgs({
  options: {
    modules: { type: 'string' },
    changed: { type: 'boolean', default: false },
    update: { type: 'boolean', default: false }
  }
})
const read = (file) => JSON.parse(readFileSync(join(root, file), 'utf8'))
const { modules, raising } = read('test/mutation/modules.json')
const baselineFile = 'test/mutation/baseline.json'
const baseline = existsSync(join(root, baselineFile)) ? read(baselineFile) : { modules: {} }
const equivalent = read('test/mutation/equivalent.json').mutants

let names = Object.keys(modules)
if (values.modules !== undefined) {
  const asked = values.modules.split(',')
  const unknown = asked.filter((n) => !(n in modules))
  if (unknown.length > 0) {
    console.error(`unknown module ${unknown.join(', ')}: test/mutation/modules.json lists ${names.join(', ')}`)
    process.exit(1)
  }
  names = asked
}
if (values.changed) {
  names = names.filter((n) => baseline.modules[n]?.files !== filesDigest(modules[n], root))
  if (names.length === 0) {
    console.log("mutation: every module's files are those its baseline was measured on; nothing to run")
    process.exit(0)
  }
}

const { Stryker } = await import('@stryker-mutator/core')
mkdirSync(join(root, 'reports', 'mutation'), { recursive: true })
const summary = { modules: {} }
const failures = []
for (const name of names) {
  const m = modules[name]
  const started = Date.now()
  console.log(`mutation: ${name}: ${m.mutate.join(', ')}`)
  const incrementalFile = `test/mutation/incremental/${name}.json`
  forgetUnkilled(join(root, incrementalFile))
  const stryker = new Stryker({
    mutate: m.mutate,
    testRunner: 'tap',
    plugins: ['@stryker-mutator/tap-runner'],
    // One test file is one "test" to the tap runner: perTest coverage runs only the files that reach a mutant.
    tap: { testFiles: m.tests, nodeArgs: ['--import', 'tsx', '--test-reporter=tap'], forceBail: true },
    coverageAnalysis: 'perTest',
    incremental: true,
    incrementalFile,
    reporters: ['html', 'json', 'progress'],
    htmlReporter: { fileName: `reports/mutation/${name}.html` },
    jsonReporter: { fileName: `reports/mutation/${name}.json` },
    concurrency: 2,
    timeoutMS: 10000,
    // One folder per module, so that two modules can be run at once (from two shells).
    tempDirName: `.stryker-tmp/${name}`,
    // The sandbox holds what the tests read: sources, tests, the example, the shipped config, the scripts
    // that build the Java oracle (into the sandbox's dist/), the README (its Java), the TS settings.
    ignorePatterns: [
      '/*',
      '!/src',
      '!/workers',
      '!/test',
      '!/examples',
      '!/config',
      '!/scripts',
      '!/README.md',
      '!/package.json',
      '!/tsconfig.json'
    ],
    cleanTempDir: 'always',
    logLevel: 'warn',
    fileLogLevel: 'off'
  })
  let results
  try {
    results = await stryker.runMutationTest()
  } catch (err) {
    // Its tests fail unmutated, or Stryker could not run them: the module is not measured, and says why.
    failures.push(`${name}: Stryker did not finish: ${err.message}`)
    continue
  } finally {
    minify(join(root, incrementalFile))
  }
  const counts = summarise(results, equivalent)
  summary.modules[name] = { ...counts, seconds: Math.round((Date.now() - started) / 1000) }
  const v = verdict(name, counts, baseline.modules[name], raising.includes(name))
  failures.push(...v)
  const listedSurvivors = results.filter((r) => r.status === 'Survived' && !equivalent[mutantKey(r)])
  for (const r of listedSurvivors.slice(0, 20)) console.log(`  survived: ${mutantKey(r)}`)
  if (listedSurvivors.length > 20)
    console.log(`  … and ${listedSurvivors.length - 20} more (reports/mutation/${name}.html)`)
}

/**
 * Drops the mutants that were not killed from a result file, so that they run again. Stryker reuses a
 * survivor unless a new test covers it, and to the tap runner a test file is one test whose name does
 * not change: a test added to a file would never be tried on the survivors it kills. Killed mutants
 * are reused only while the file that killed them is unchanged, which Stryker does see.
 */
function forgetUnkilled(file) {
  if (!existsSync(file)) return
  const report = JSON.parse(readFileSync(file, 'utf8'))
  for (const f of Object.values(report.files))
    f.mutants = f.mutants.filter((mutant) => mutant.status === 'Killed' || mutant.status === 'Timeout')
  writeFileSync(file, `${JSON.stringify(report)}\n`)
}

/**
 * A result file on one line: Stryker writes it indented, which made these files half of the tracked
 * lines of the project; a run reads it either way (docs/development.md, "Mutation testing").
 */
function minify(file) {
  if (!existsSync(file)) return
  writeFileSync(file, `${JSON.stringify(JSON.parse(readFileSync(file, 'utf8')))}\n`)
}

writeFileSync(join(root, 'reports', 'mutation', 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`)
console.log('\nmodule                 killed survived equivalent no-coverage timeout  score baseline')
for (const [name, c] of Object.entries(summary.modules)) {
  const b = baseline.modules[name]
  console.log(
    `${name.padEnd(22)} ${String(c.killed).padStart(6)} ${String(c.survived).padStart(8)} ${String(c.equivalent).padStart(10)} ${String(c.noCoverage).padStart(11)} ${String(c.timeout).padStart(7)} ${c.score.toFixed(1).padStart(6)} ${b === undefined ? '     -' : b.score.toFixed(1).padStart(8)}`
  )
}
if (values.update) {
  for (const [name, c] of Object.entries(summary.modules)) {
    baseline.modules[name] = { ...c, files: filesDigest(modules[name], root) }
    delete baseline.modules[name].seconds
  }
  writeFileSync(join(root, baselineFile), `${JSON.stringify(baseline, null, 2)}\n`)
  console.log(`baseline written: ${baselineFile}`)
}
if (failures.length > 0) {
  console.error(`\nmutation: ${failures.length} problem(s):\n  ${failures.join('\n  ')}`)
  process.exit(1)
}
