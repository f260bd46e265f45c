// node npm-fetch.mjs SPEC INTEGRITY DIR: `npm pack SPEC` into DIR (a cache: an existing tarball is
// reused) and check it against INTEGRITY, the sha512 the registry published for it ("-" skips the
// check, for a tarball URL that has none). Prints the tarball's path. Used on the host for the base
// image (Node, npm) and inside the image build for uWebSockets.js (install-uws.mjs).
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

export function fetchPacked(spec, integrity, dir) {
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `${spec.replace(/[^A-Za-z0-9._-]+/g, '_')}.tgz`)
  if (!existsSync(file)) {
    const tmp = mkdtempSync(join(tmpdir(), 'npm-fetch-'))
    try {
      const out = execFileSync('npm', ['pack', '--json', '--pack-destination', tmp, spec], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit']
      })
      renameSync(join(tmp, JSON.parse(out)[0].filename), file)
    } finally {
      rmSync(tmp, { recursive: true, force: true })
    }
  }
  if (integrity !== '-') {
    const actual = `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`
    if (actual !== integrity) {
      rmSync(file)
      throw new Error(`${spec}: the tarball's integrity is ${actual}, not the pinned ${integrity}`)
    }
  }
  return file
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [spec, integrity, dir] = process.argv.slice(2)
  if (spec === undefined || integrity === undefined || dir === undefined) {
    console.error('usage: node npm-fetch.mjs SPEC INTEGRITY|- DIR')
    process.exit(2)
  }
  try {
    console.log(fetchPacked(spec, integrity, dir))
  } catch (err) {
    console.error(`npm-fetch: ${err.message}`)
    process.exit(1)
  }
}
