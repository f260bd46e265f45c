// The tree says what the code is (docs/development.md, "src/ holds four programs"): folders small enough
// to read at a glance, one name per idea, and unit tests found by the path of what they test.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join, relative } from 'node:path'
import { ROOT } from '../../helpers/root'

const SRC = join(ROOT, 'src')
const UNIT = join(ROOT, 'test', 'unit')
/** Names that mean one idea wherever they are: a folder's entry, a program's start, a format's scanner. */
const SHARED_NAMES = new Set(['index.ts', 'main.ts', 'scan.ts'])

function folders(dir: string): string[] {
  return [dir, ...readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? folders(join(dir, n)) : []))]
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
