// Runs every compiled test file with node's test runner (Node 20 takes no globs).
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'

const root = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..', 'dist', 'test')
const files = []
const only = process.argv.slice(2)
;(function walk (dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) { if (name !== 'fixtures' && name !== 'helpers') walk(p) }
    else if (name.endsWith('.test.js') && (only.length === 0 || only.some((o) => p.includes(o)))) files.push(p)
  }
})(root)
if (files.length === 0) { console.error('no test files found under dist/test'); process.exit(1) }
const r = spawnSync(process.execPath, ['--test', '--test-reporter=spec', ...files], { stdio: 'inherit' })
process.exit(r.status ?? 1)
