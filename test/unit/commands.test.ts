// The two commands as an operator types them: --help, --version, and the server's --check.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'

const ROOT = join(__dirname, '..', '..', '..')
const MAIN = join(ROOT, 'dist', 'src', 'main.js')
const CLI = join(ROOT, 'bin', 'microservice')
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version

function run(file: string, args: string[], env: NodeJS.ProcessEnv = {}): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [file, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 20000
  })
  return { code: r.status, out: `${r.stdout}${r.stderr}` }
}

test('server: --help and --version print and exit 0, start nothing', () => {
  for (const flag of ['--help', '-h']) {
    const r = run(MAIN, [flag])
    assert.equal(r.code, 0)
    assert.match(r.out, /--check/)
  }
  const v = run(MAIN, ['--version'])
  assert.equal(v.code, 0)
  assert.equal(v.out.trim(), `invocation-gateway ${VERSION}`)
})

test('server: --check validates the config and exits; a misspelled key fails naming it', () => {
  const ok = run(MAIN, ['--check'])
  assert.equal(ok.code, 0, ok.out)
  assert.match(ok.out, /valid/)
  const file = join(mkdtempSync(join(tmpdir(), 'check-')), 'platform.json')
  writeFileSync(file, JSON.stringify({ ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { maxBodyByte: 1 } } }))
  const bad = run(MAIN, ['--check'], { PLATFORM_CONFIG: file })
  assert.equal(bad.code, 1)
  assert.match(bad.out, /ENTRY_POINTS\.WEB_SERVICE_FACADE_HTTP\.maxBodyByte: unknown key/)
  const unknownFlag = run(MAIN, ['--bogus'])
  assert.equal(unknownFlag.code, 1)
})

test('microservice: -h, --help and --version', () => {
  for (const flag of ['-h', '--help']) {
    const r = run(CLI, [flag])
    assert.equal(r.code, 0)
    assert.match(r.out, /usage: microservice/)
  }
  const v = run(CLI, ['--version'])
  assert.equal(v.code, 0)
  assert.equal(v.out.trim(), `microservice (invocation-gateway) ${VERSION}`)
})
