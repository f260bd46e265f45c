// The unpacker's own guard against zip-slip, reached directly: yauzl's name check is off
// (decodeStrings: false), so this payload would really land outside the package if the guard failed.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync, existsSync, rmSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { unpackZip } from '../../../../src/platform/package/zip'
import { makeZip } from '../../../helpers/inputs/zip'

const base = mkdtempSync(join(tmpdir(), 'zipslip-'))
after(() => rmSync(base, { recursive: true, force: true }))

const config = JSON.stringify({ name: 'example', version: '1', entry: 'index.js' })

async function refused(name: string, data = 'pwned'): Promise<Error> {
  const zip = join(base, `p${Math.random().toString(36).slice(2)}.zip`)
  writeFileSync(
    zip,
    makeZip([
      { name: 'example/microservice.json', data: config },
      { name, data }
    ])
  )
  const target = join(base, 'deployments', 'staging', Math.random().toString(36).slice(2))
  mkdirSync(join(base, 'deployments', 'staging'), { recursive: true })
  return unpackZip(zip, target).then(
    () => assert.fail(`'${name}' was unpacked`),
    (err: Error) => err
  )
}

test('a name that climbs out to a directory that outlives the deploy is refused, and nothing lands there', async () => {
  const escaped = join(base, 'escaped', 'evil.js')
  // From the package directory up to '/', then down to a directory the deploy never deletes.
  const name = `example/${'../'.repeat(40)}${escaped.slice(1)}`
  const err = await refused(name)
  assert.match(err.message, /outside the package directory/)
  assert.equal(existsSync(escaped), false)
  assert.equal(existsSync(join(base, 'escaped')), false)
})

test('absolute names, backslashes, NULs, dot segments and undeclared non-ASCII names are refused', async () => {
  const cases: Array<[string, RegExp]> = [
    ['/tmp/evil.js', /absolute path/],
    ['example/..\\..\\evil.js', /backslash or NUL/],
    ['example/a\u0000b', /backslash or NUL/],
    ['example/./index.js', /outside the package directory/],
    ['example//index.js', /outside the package directory/]
  ]
  for (const [name, message] of cases) assert.match((await refused(name)).message, message, name)
})

test('a well-formed package unpacks into its directory', async () => {
  const zip = join(base, 'ok.zip')
  writeFileSync(
    zip,
    makeZip([
      { name: 'example/microservice.json', data: config },
      { name: 'example/lib/index.js', data: 'x' }
    ])
  )
  const target = join(base, 'ok')
  assert.equal(await unpackZip(zip, target), 'example')
  assert.equal(existsSync(join(target, 'example', 'lib', 'index.js')), true)
})

test('maxEntries and maxTotalBytes hold across entries that are each within maxEntryBytes', async () => {
  const entries = (n: number, size: number): Array<{ name: string; data: string }> => [
    { name: 'example/microservice.json', data: config },
    ...Array.from({ length: n }, (_, k) => ({ name: `example/f${k}.js`, data: 'x'.repeat(size) }))
  ]
  const attempt = async (files: Array<{ name: string; data: string }>, limits: Parameters<typeof unpackZip>[2]) => {
    const zip = join(base, `l${Math.random().toString(36).slice(2)}.zip`)
    writeFileSync(zip, makeZip(files))
    return unpackZip(zip, join(base, `l${Math.random().toString(36).slice(2)}`), limits)
  }
  const limits = { maxEntries: 5, maxEntryBytes: 1000, maxTotalBytes: 2500 }
  // Within every bound: 4 entries + the config, 4 × 500 bytes + the config.
  assert.equal(await attempt(entries(4, 500), limits), 'example')
  await assert.rejects(attempt(entries(5, 10), limits), /more than 5 entries/)
  // Each entry is under maxEntryBytes; together they pass maxTotalBytes.
  await assert.rejects(attempt(entries(3, 900), limits), /the package inflates beyond 2500 bytes/)
  await assert.rejects(attempt(entries(1, 1001), limits), /'example\/f0\.js' declares 1001 bytes, more than 1000/)
})
