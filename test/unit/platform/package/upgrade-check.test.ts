import { test } from 'node:test'
import assert from 'node:assert/strict'
import { compareVersions, versionRefusal } from '../../../../src/platform/package/upgrade-check'

test('versions compare by numeric parts, a pre-release before its release, text as text', () => {
  const ordered = [
    '0.9',
    '1.0.0-alpha',
    '1.0.0-alpha.1',
    '1.0.0-beta',
    '1.0.0-rc.2',
    '1.0.0-rc.10',
    '1.0.0',
    '1.0.1',
    '1.2',
    '1.10.0',
    '2',
    '10.0.0'
  ]
  for (let i = 0; i < ordered.length; i++)
    for (let j = 0; j < ordered.length; j++)
      assert.equal(compareVersions(ordered[i]!, ordered[j]!), Math.sign(i - j), `${ordered[i]} vs ${ordered[j]}`)
  assert.equal(compareVersions('1.0', '1.0.0'), 0)
  assert.equal(compareVersions('1.0.a', '1.0.b'), -1)
  assert.equal(compareVersions('1.0.0+build.7', '1.0.0+build.12'), 0)
})

test('an upload is refused only over the same or a newer running version', () => {
  assert.equal(versionRefusal('orders', '1.0.0', null), null)
  assert.equal(versionRefusal('orders', '1.0.1', '1.0.0'), null)
  assert.match(versionRefusal('orders', '1.0.0', '1.0.0')!, /^orders 1\.0\.0 is deployed already; .*--force$/)
  assert.match(
    versionRefusal('orders', '1.0.0', '1.1.0', ' on http://n1')!,
    /^orders 1\.1\.0 is deployed on http:\/\/n1, newer than 1\.0\.0; .*rollback orders/
  )
})
