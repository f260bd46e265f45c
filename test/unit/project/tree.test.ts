// The tree says what the code is (docs/development.md, "src/ holds four programs"): folders small enough
// to read at a glance, one name per idea, and unit tests found by the path of what they test.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join, relative } from 'node:path'
import { ROOT } from '../../helpers/root'

const SRC = join(ROOT, 'src')
const BENCH = join(ROOT, 'bench')
const TEST = join(ROOT, 'test')
const WORKERS = join(ROOT, 'workers')
const UNIT = join(ROOT, 'test', 'unit')
/** Names that mean one idea wherever they are: a folder's entry, a program's start, a format's scanner. */
const SHARED_NAMES = new Set(['index.ts', 'main.ts', 'scan.ts'])
/** In bench/: each bench's entry program. */
const BENCH_SHARED = new Set(['run.ts'])
/** Folders of test/ that hold data, not modules: microservice packages, Stryker's result files. */
const DATA = new Set(['fixtures', 'incremental'])

function folders(dir: string): string[] {
  return [
    dir,
    ...readdirSync(dir).flatMap((n) =>
      statSync(join(dir, n)).isDirectory() && !DATA.has(n) ? folders(join(dir, n)) : []
    )
  ]
}
const modules = (dir: string): string[] => readdirSync(dir).filter((n) => n.endsWith('.ts') && !n.endsWith('.d.ts'))

/** The folders over `limit` modules, and the names two modules share. */
function treeProblems(root: string, limit = 15, shared = SHARED_NAMES): string[] {
  const problems: string[] = []
  const where = new Map<string, string[]>()
  for (const dir of folders(root)) {
    const own = modules(dir)
    if (own.length > limit) problems.push(`${relative(ROOT, dir)}/ holds ${own.length} modules (at most ${limit})`)
    for (const n of own) where.set(n, [...(where.get(n) ?? []), relative(ROOT, join(dir, n))])
  }
  for (const [n, paths] of where)
    if (paths.length > 1 && !shared.has(n) && !paths.some((p) => p.includes('/generated/')))
      problems.push(`${n} names ${paths.length} modules: ${paths.join(', ')}`)
  return problems
}

test('no folder of src/ holds more than 15 modules, and no two modules share a name for two ideas', () => {
  assert.deepEqual(treeProblems(SRC), [])
  // Not vacuous: with a lower limit, and without the shared names, the same tree has problems.
  assert.ok(treeProblems(join(SRC, 'gateway'), 5).some((p) => p.startsWith('src/gateway/invoke/ holds')))
  assert.ok(treeProblems(SRC, 15, new Set()).some((p) => p.startsWith('index.ts names 2 modules')))
})

test('bench/ reads as src/ does: at most 15 modules a folder, one name per idea, no file over 600 lines', () => {
  assert.deepEqual(treeProblems(BENCH, 15, BENCH_SHARED), [])
  const long = folders(BENCH).flatMap((dir) =>
    modules(dir)
      .map((n) => [relative(ROOT, join(dir, n)), readFileSync(join(dir, n), 'utf8').split('\n').length] as const)
      .filter(([, lines]) => lines > 600)
      .map(([file, lines]) => `${file} has ${lines} lines (at most 600)`)
  )
  assert.deepEqual(long, [])
  // Not vacuous: a lower limit finds the e2e folder.
  assert.ok(treeProblems(BENCH, 5, BENCH_SHARED).some((p) => p.startsWith('bench/e2e/ holds')))
})

test('no folder of test/ holds more than 15 modules (tests and helpers; fixtures are data)', () => {
  const crowded = treeProblems(TEST, 15, new Set()).filter((p) => p.includes(' holds '))
  assert.deepEqual(crowded, [])
  assert.ok(treeProblems(TEST, 5, new Set()).some((p) => p.startsWith('test/integration/') && p.includes(' holds ')))
})

test('workers/ holds one thin entry per thread: NAME.ts runs the NAMEThread that src/ exports, and worker-entries.ts names each', () => {
  const names = modules(WORKERS).map((n) => n.replace(/\.ts$/, ''))
  const entries = readFileSync(join(SRC, 'common', 'process', 'worker-entries.ts'), 'utf8')
  const union = /workerEntry\(name: ([^)]+)\)/.exec(entries)?.[1] ?? ''
  assert.deepEqual([...union.matchAll(/'(\w+)'/g)].map((m) => m[1]).sort(), [...names].sort())
  for (const name of names) {
    const code = readFileSync(join(WORKERS, `${name}.ts`), 'utf8')
    const thread = `${name}Thread`
    assert.match(
      code,
      new RegExp(`import \\{ ${thread} \\} from '\\.\\./src/[\\w/]+/${name}-thread'`),
      `workers/${name}.ts imports ${thread}`
    )
    // Thin: besides comments and imports, one statement, the call of its thread's function.
    const statements = code
      .split('\n')
      .filter((l) => l.trim() !== '' && !l.startsWith('//') && !l.startsWith('import '))
    assert.equal(statements.length, 1, `workers/${name}.ts: ${statements.join(' | ')}`)
    assert.match(statements[0]!, new RegExp(`^(export default )?${thread}\\(`), `workers/${name}.ts`)
  }
})

test('test/unit/ has a folder for each program of src/, and each unit test sits where its module does', () => {
  const programs = readdirSync(SRC).filter((n) => statSync(join(SRC, n)).isDirectory())
  for (const p of programs) assert.ok(statSync(join(UNIT, p)).isDirectory(), `test/unit/${p}/ is missing`)
  const misplaced: string[] = []
  for (const dir of folders(UNIT)) {
    const rel = relative(UNIT, dir)
    const top = rel.split('/')[0]!
    if (rel === '' || top === 'project' || top === 'bench') continue
    const mirror = join(SRC, rel)
    let isDir = false
    try {
      isDir = statSync(mirror).isDirectory()
    } catch {
      isDir = false
    }
    if (!isDir) misplaced.push(`test/unit/${rel}/ mirrors no folder of src/`)
  }
  assert.deepEqual(misplaced, [])
  assert.deepEqual(
    modules(UNIT).map((n) => basename(n)),
    [],
    'test/unit/ itself holds no tests: each sits under the program it tests'
  )
})

test('test/ holds one folder per kind of test, each in the table docs/development.md keeps', () => {
  const kinds = readdirSync(join(ROOT, 'test'))
    .filter((n) => statSync(join(ROOT, 'test', n)).isDirectory())
    .sort()
  const doc = readFileSync(join(ROOT, 'docs', 'development.md'), 'utf8')
  const table = doc.slice(doc.indexOf('`test/` holds one folder per kind of test'))
  const rows = table.slice(0, table.indexOf('\n\n', table.indexOf('| folder |'))).split('\n')
  // The first cell of each row names its folders: `unit/`, or `fixtures/`, `helpers/`, `mutation/`.
  const listed = rows.flatMap((r) =>
    [...(/^\| ([^|]+) \|/.exec(r)?.[1] ?? '').matchAll(/`([a-z]+)\/`/g)].map((m) => m[1]!)
  )
  assert.deepEqual(kinds, [...new Set(listed)].sort())
})

test('no two test files share a name: a name in a failure report or a search finds one file', () => {
  const byName = new Map<string, string[]>()
  for (const dir of folders(TEST))
    for (const n of readdirSync(dir).filter((f) => /\.(test|suite)\.ts$/.test(f)))
      byName.set(n, [...(byName.get(n) ?? []), relative(ROOT, join(dir, n))])
  assert.ok(byName.size > 100, `${byName.size} test files found`)
  assert.deepEqual(
    [...byName.values()].filter((paths) => paths.length > 1),
    []
  )
})
