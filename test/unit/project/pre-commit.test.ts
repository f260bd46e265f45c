// The pre-commit hook (.githooks/pre-commit, CONTRIBUTING.md) in a throwaway clone of this repository:
// a staged file Prettier would change, or one ESLint refuses, stops the commit with the way out; a
// clean one passes; a commit of nothing it checks passes at once.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { ROOT } from '../../helpers/root'

function sh(cwd: string, cmd: string, args: string[]): { code: number | null; out: string } {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 60000 })
  return { code: r.status, out: `${r.stdout}${r.stderr}` }
}

test('the pre-commit hook refuses unformatted or unlinted staged code and passes clean code', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pre-commit-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const clone = join(dir, 'clone')
  assert.equal(sh(dir, 'git', ['clone', '--quiet', '--shared', ROOT, clone]).code, 0)
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir')
  const hook = (): { code: number | null; out: string } => sh(clone, 'bash', ['.githooks/pre-commit'])
  const stage = (name: string, text: string): void => {
    writeFileSync(join(clone, name), text)
    assert.equal(sh(clone, 'git', ['add', name]).code, 0)
  }
  assert.equal(hook().code, 0, 'nothing staged')
  stage('src/hooked.ts', 'export const x = {a:1}\n')
  const unformatted = hook()
  assert.equal(unformatted.code, 1, unformatted.out)
  assert.match(unformatted.out, /npm run lint:fix formats them/)
  stage('src/hooked.ts', 'export const x = { a: 1 }\n')
  const formatted = hook()
  assert.equal(formatted.code, 0, formatted.out)
  stage('src/hooked.ts', '// eslint sees an unused variable\nconst unused = 1\n')
  const unlinted = hook()
  assert.notEqual(unlinted.code, 0, unlinted.out)
  assert.match(unlinted.out, /unused/)
})
