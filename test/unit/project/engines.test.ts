// `npm ci` on the Node versions the project supports prints no EBADENGINE warning: every package the
// lock file installs accepts the oldest Node 20 and the Node 24 the image runs.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { satisfies } from 'semver'
import { ROOT } from '../../helpers/root'

test('every locked package accepts the supported Node versions (no EBADENGINE at npm ci)', () => {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>
  }
  const own = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines
    .node
  const supported = ['20.19.0', '24.0.0']
  for (const v of supported) assert.ok(satisfies(v, own), `${v} is in package.json's engines (${own})`)
  const refusing: string[] = []
  for (const [path, p] of Object.entries(lock.packages)) {
    const range = Array.isArray(p.engines) ? undefined : p.engines?.node
    if (path === '' || range === undefined) continue
    for (const v of supported) if (!satisfies(v, range)) refusing.push(`${path} wants node ${range}, not ${v}`)
  }
  assert.deepEqual(refusing, [])
})
